package device

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// What a device carries, read from its first and last bytes: partition
// tables, filesystems, RAID, LVM, LUKS, swap, ZFS, bcache. Reading is all it
// does; the list goes into refusal messages so that the user sees what would
// be destroyed.

// probeHead and probeTail are how much of the start and end is read.
const (
	probeHead = 256 << 10
	probeTail = 128 << 10
)

type signature struct {
	name   string
	offset int64 // from the start; negative: from the end
	magic  []byte
	check  func(head []byte) bool // extra test on the head, optional
}

var signatures = []signature{
	{name: "a GPT partition table", offset: 512, magic: []byte("EFI PART")},
	{name: "a GPT partition table", offset: 4096, magic: []byte("EFI PART")},
	{name: "an ext2/3/4 filesystem", offset: 1080, magic: []byte{0x53, 0xEF}, check: extMagicPlausible},
	{name: "an XFS filesystem", offset: 0, magic: []byte("XFSB")},
	{name: "a Btrfs filesystem", offset: 0x10040, magic: []byte("_BHRfS_M")},
	{name: "an NTFS filesystem", offset: 3, magic: []byte("NTFS    ")},
	{name: "a FAT filesystem", offset: 0x52, magic: []byte("FAT32   ")},
	{name: "a FAT filesystem", offset: 0x36, magic: []byte("FAT1")},
	{name: "swap", offset: 4096 - 10, magic: []byte("SWAPSPACE2")},
	{name: "swap", offset: 4096 - 10, magic: []byte("SWAP-SPACE")},
	{name: "an LVM physical volume", offset: 512 + 24, magic: []byte("LVM2 001")},
	{name: "a LUKS encrypted volume", offset: 0, magic: []byte("LUKS\xba\xbe")},
	{name: "an md RAID member (superblock 1.1)", offset: 0, magic: []byte{0xfc, 0x4e, 0x2b, 0xa9}},
	{name: "an md RAID member (superblock 1.2)", offset: 4096, magic: []byte{0xfc, 0x4e, 0x2b, 0xa9}},
	{name: "a bcache device", offset: 4096 + 24, magic: []byte{0xc6, 0x85, 0x73, 0xf6, 0x4e, 0x1a, 0x45, 0xca, 0x82, 0x65, 0xf5, 0x7f, 0x48, 0xba, 0x6d, 0x81}},
	{name: "an ISO 9660 filesystem", offset: 32769, magic: []byte("CD001")},
}

func extMagicPlausible(head []byte) bool {
	// s_log_block_size (offset 1024+24) is 0, 1 or 2 for 1, 2 and 4 KiB blocks.
	if len(head) < 1024+28 {
		return false
	}
	return binary.LittleEndian.Uint32(head[1024+24:]) <= 6
}

// Signatures reads what the device or file at path carries.
func Signatures(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, err
	}
	head := make([]byte, min(size, probeHead))
	if _, err := f.ReadAt(head, 0); err != nil && err != io.EOF {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	tailLen := min(size, probeTail)
	tail := make([]byte, tailLen)
	if _, err := f.ReadAt(tail, size-tailLen); err != nil && err != io.EOF {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return detect(head, tail, size), nil
}

// detect names what the head and tail of a device of size bytes carry.
func detect(head, tail []byte, size int64) []string {
	var out []string
	add := func(s string) {
		for _, x := range out {
			if x == s {
				return
			}
		}
		out = append(out, s)
	}
	for _, sg := range signatures {
		end := sg.offset + int64(len(sg.magic))
		if end > int64(len(head)) || !bytes.Equal(head[sg.offset:end], sg.magic) {
			continue
		}
		if sg.check != nil && !sg.check(head) {
			continue
		}
		add(sg.name)
	}
	if mbr(head) {
		add("an MBR partition table")
	}
	if zfsLabel(head) {
		add("a ZFS pool member")
	}
	// md superblocks 0.90 and 1.0 sit at the end of the device.
	if size >= 128<<10 && len(tail) >= 64<<10 {
		// 0.90: at the last 64 KiB boundary minus 64 KiB; 1.0: 8 KiB before the end, 4 KiB aligned.
		off090 := (size & ^int64(64<<10-1)) - 64<<10
		if rel := off090 - (size - int64(len(tail))); rel >= 0 && rel+4 <= int64(len(tail)) &&
			bytes.Equal(tail[rel:rel+4], []byte{0xfc, 0x4e, 0x2b, 0xa9}) {
			add("an md RAID member (superblock 0.90)")
		}
		off10 := ((size - 8<<10) & ^int64(4<<10-1))
		if rel := off10 - (size - int64(len(tail))); rel >= 0 && rel+4 <= int64(len(tail)) &&
			bytes.Equal(tail[rel:rel+4], []byte{0xfc, 0x4e, 0x2b, 0xa9}) {
			add("an md RAID member (superblock 1.0)")
		}
	}
	return out
}

// mbr recognises a DOS partition table: the boot signature and at least one
// partition entry with a type and a sane boot flag. A FAT boot sector also
// ends in 55 AA, so it does not count when a FAT filesystem is there.
func mbr(head []byte) bool {
	if len(head) < 512 || head[510] != 0x55 || head[511] != 0xAA {
		return false
	}
	if bytes.Equal(head[0x36:0x3A], []byte("FAT1")) || bytes.Equal(head[0x52:0x57], []byte("FAT32")) ||
		bytes.Equal(head[3:11], []byte("NTFS    ")) {
		return false
	}
	for i := 0; i < 4; i++ {
		e := head[446+16*i : 446+16*(i+1)]
		if (e[0] == 0 || e[0] == 0x80) && e[4] != 0 {
			return true
		}
	}
	return false
}

// zfsLabel finds the uberblock magic 0x00bab10c in label 0's uberblock array
// (128 KiB into the device).
func zfsLabel(head []byte) bool {
	const at = 128 << 10
	magic := []byte{0x0c, 0xb1, 0xba, 0x00, 0, 0, 0, 0}
	for off := at; off+8 <= len(head) && off < at+128<<10; off += 1 << 10 {
		if bytes.Equal(head[off:off+8], magic) {
			return true
		}
	}
	return false
}
