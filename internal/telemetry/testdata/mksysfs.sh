#!/bin/sh
# Writes testdata/sysfs, the fake sysfs the tests detect sources in: run
# from internal/telemetry as `sh testdata/mksysfs.sh`. Reconstructed by
# hand from the kernel's layout (drivers/nvme/host/hwmon.c, drivers/hwmon/
# drivetemp.c, the block and nvme classes), not copied from a machine; the
# values are made up. See testdata/README.md.
set -eu
R=testdata/sysfs
rm -rf "$R"
w() { mkdir -p "$(dirname "$R/$1")"; printf '%s\n' "$2" > "$R/$1"; }
l() { mkdir -p "$(dirname "$R/$1")"; ln -s "$2" "$R/$1"; }
blk() { # blk DIR DEV SIZE: the files of a block device
	w "$1/dev" "$2"; w "$1/size" "$3"; w "$1/ro" 0; w "$1/removable" 0
	w "$1/queue/logical_block_size" 512; w "$1/queue/physical_block_size" 4096
	w "$1/queue/rotational" 0; w "$1/queue/write_cache" "write back"; w "$1/queue/discard_max_bytes" 2199023255040
}
hw() { # hw DIR CH LABEL INPUT [MAX [CRIT]]: one hwmon temperature channel
	[ -n "$3" ] && w "$1/temp$2_label" "$3"
	w "$1/temp$2_input" "$4"
	[ -n "${5:-}" ] && w "$1/temp$2_max" "$5"
	[ -n "${6:-}" ] && w "$1/temp$2_crit" "$6"
	return 0
}
PCI=sys/devices/pci0000:00

# nvme0: Linux 5.10 and later, hwmon below the controller; a composite
# temperature with its threshold (temp1_max) and CCTEMP (temp1_crit), two
# sensors; nvme0n1 has a partition.
C=$PCI/0000:00:01.1/0000:01:00.0/nvme/nvme0
w $C/model "Example NVMe SSD 1TB"; w $C/serial "EXN0000001"; w $C/firmware_rev "1B2QEXM7"; w $C/transport pcie
l $C/device ../../../0000:01:00.0
w $PCI/0000:00:01.1/0000:01:00.0/class 0x010802
blk $C/nvme0n1 259:0 1953525168; w $C/nvme0n1/nsid 1; w $C/nvme0n1/wwid "eui.0025385b71b01234"
l $C/nvme0n1/device ../../nvme0
w $C/nvme0n1/nvme0n1p1/partition 1; w $C/nvme0n1/nvme0n1p1/dev 259:1; w $C/nvme0n1/nvme0n1p1/size 2048
w $C/hwmon1/name nvme
hw $C/hwmon1 1 Composite 38850 83850 86850; w $C/hwmon1/temp1_min -273150; w $C/hwmon1/temp1_alarm 0
hw $C/hwmon1 2 "Sensor 1" 38850 65261850; w $C/hwmon1/temp2_min -273150
hw $C/hwmon1 3 "Sensor 2" 45850 65261850; w $C/hwmon1/temp3_min -273150
l sys/class/block/nvme0n1 ../../${C#sys/}/nvme0n1
l sys/class/block/nvme0n1p1 ../../${C#sys/}/nvme0n1/nvme0n1p1

# nvme1: before Linux 5.10, hwmon below the PCI function; the composite
# temperature only, no CCTEMP.
P=$PCI/0000:00:1c.0/0000:02:00.0
C=$P/nvme/nvme1
w $C/model "Older NVMe SSD"; w $C/serial "OLD0000001"; w $C/firmware_rev "2.0"; w $C/transport pcie
l $C/device ../../../0000:02:00.0
w $P/class 0x010802
blk $C/nvme1n1 259:2 976773168; w $C/nvme1n1/nsid 1
l $C/nvme1n1/device ../../nvme1
w $P/hwmon/hwmon0/name nvme
hw $P/hwmon/hwmon0 1 Composite 41850 70850
l sys/class/block/nvme1n1 ../../${C#sys/}/nvme1n1

# nvme3n1: native multipath; the namespace hangs off its subsystem, whose
# controller nvme3 has the hwmon.
P=$PCI/0000:00:1d.0/0000:05:00.0
C=$P/nvme/nvme3
S=sys/devices/virtual/nvme-subsystem/nvme-subsys3
w $C/model "Dual Port NVMe SSD"; w $C/serial "DP00000001"; w $C/firmware_rev "3.1"; w $C/transport pcie
l $C/device ../../../0000:05:00.0
w $P/class 0x010802
l $S/nvme3 ../../../pci0000:00/0000:00:1d.0/0000:05:00.0/nvme/nvme3
w $S/model "Dual Port NVMe SSD"; w $S/serial "DP00000001"; w $S/firmware_rev "3.1"
blk $S/nvme3n1 259:4 3750748848; w $S/nvme3n1/nsid 1
l $S/nvme3n1/device ../../nvme-subsys3
w $C/hwmon4/name nvme
hw $C/hwmon4 1 Composite 35850 80850 84850
l sys/class/block/nvme3n1 ../../${S#sys/}/nvme3n1

# nvme4n1: an NVMe drive whose kernel has no hwmon (CONFIG_NVME_HWMON off).
C=$PCI/0000:00:1e.0/0000:06:00.0/nvme/nvme4
w $C/model "No Hwmon NVMe"; w $C/serial "NH00000001"; w $C/transport pcie
blk $C/nvme4n1 259:6 976773168; w $C/nvme4n1/nsid 1
l $C/nvme4n1/device ../../nvme4
l sys/class/block/nvme4n1 ../../${C#sys/}/nvme4n1

# sda: a SATA SSD with drivetemp (temp1 with its SCT limits); sdb: a SATA
# disk without drivetemp; sdc: a SAS SSD.
A=$PCI/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0
w $A/vendor ATA; w $A/model "Example SATA SSD"; w $A/rev "1B6Q"; mkdir -p $R/$A/scsi_device
blk $A/block/sda 8:0 1000215216; l $A/block/sda/device ../../../0:0:0:0
w $A/hwmon/hwmon2/name drivetemp
hw $A/hwmon/hwmon2 1 "" 36000 70000 80000; w $A/hwmon/hwmon2/temp1_lowest 20000; w $A/hwmon/hwmon2/temp1_highest 45000
l sys/class/block/sda ../../${A#sys/}/block/sda
A=$PCI/0000:00:17.0/ata2/host1/target1:0:0/1:0:0:0
w $A/vendor ATA; w $A/model "Example SATA HDD"; w $A/rev "SC60"; mkdir -p $R/$A/scsi_device
blk $A/block/sdb 8:16 7814037168; w $A/block/sdb/queue/rotational 1; l $A/block/sdb/device ../../../1:0:0:0
l sys/class/block/sdb ../../${A#sys/}/block/sdb
A=$PCI/0000:00:1f.0/0000:07:00.0/host2/port-2:0/end_device-2:0/target2:0:0/2:0:0:0
w $A/vendor SEAGATE; w $A/model "Example SAS SSD"; w $A/rev "0004"; w $A/sas_address 0x5000c500a1b2c3d4; mkdir -p $R/$A/scsi_device
blk $A/block/sdc 8:32 3750748848; l $A/block/sdc/device ../../../2:0:0:0
l sys/class/block/sdc ../../${A#sys/}/block/sdc

# Devices without sources: a loop device, a device-mapper volume, a virtio
# disk, zram.
blk sys/devices/virtual/block/loop0 7:0 524288; w sys/devices/virtual/block/loop0/loop/backing_file /srv/img/free.img
l sys/class/block/loop0 ../../devices/virtual/block/loop0
blk sys/devices/virtual/block/dm-0 253:0 1048576; w sys/devices/virtual/block/dm-0/dm/name vg-lv
l sys/class/block/dm-0 ../../devices/virtual/block/dm-0
V=$PCI/0000:00:05.0/virtio2
blk $V/block/vda 254:0 536870912; w $V/block/vda/serial ""; w $V/vendor 0x1af4
l $V/block/vda/device ../../../virtio2
l sys/class/block/vda ../../${V#sys/}/block/vda
blk sys/devices/virtual/block/zram0 253:1 0
l sys/class/block/zram0 ../../devices/virtual/block/zram0
