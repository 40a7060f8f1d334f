package device

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// image returns a blank 1 MiB device image with magic bytes planted.
func image(plant func(b []byte)) []byte {
	b := make([]byte, 1<<20)
	plant(b)
	return b
}

func TestDetectSignatures(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(b []byte)
		want  []string
	}{
		{"blank", func(b []byte) {}, nil},
		{"gpt", func(b []byte) { copy(b[512:], "EFI PART"); b[510], b[511] = 0x55, 0xAA; b[446+4] = 0xEE }, []string{"a GPT partition table", "an MBR partition table"}},
		{"mbr", func(b []byte) { b[510], b[511] = 0x55, 0xAA; b[446+4] = 0x83 }, []string{"an MBR partition table"}},
		{"boot signature without a partition is not a table", func(b []byte) { b[510], b[511] = 0x55, 0xAA }, nil},
		{"ext4", func(b []byte) { b[1080], b[1081] = 0x53, 0xEF; binary.LittleEndian.PutUint32(b[1024+24:], 2) }, []string{"an ext2/3/4 filesystem"}},
		{"ext magic with a wild block size is noise", func(b []byte) { b[1080], b[1081] = 0x53, 0xEF; binary.LittleEndian.PutUint32(b[1024+24:], 99) }, nil},
		{"xfs", func(b []byte) { copy(b, "XFSB") }, []string{"an XFS filesystem"}},
		{"btrfs", func(b []byte) { copy(b[0x10040:], "_BHRfS_M") }, []string{"a Btrfs filesystem"}},
		{"vfat", func(b []byte) { copy(b[0x52:], "FAT32   "); b[510], b[511] = 0x55, 0xAA; b[446+4] = 0x0c }, []string{"a FAT filesystem"}},
		{"swap", func(b []byte) { copy(b[4096-10:], "SWAPSPACE2") }, []string{"swap"}},
		{"lvm", func(b []byte) { copy(b[512:], "LABELONE"); copy(b[512+24:], "LVM2 001") }, []string{"an LVM physical volume"}},
		{"luks", func(b []byte) { copy(b, "LUKS\xba\xbe") }, []string{"a LUKS encrypted volume"}},
		{"md 1.2", func(b []byte) { copy(b[4096:], []byte{0xfc, 0x4e, 0x2b, 0xa9}) }, []string{"an md RAID member (superblock 1.2)"}},
		{"bcache", func(b []byte) {
			copy(b[4096+24:], []byte{0xc6, 0x85, 0x73, 0xf6, 0x4e, 0x1a, 0x45, 0xca, 0x82, 0x65, 0xf5, 0x7f, 0x48, 0xba, 0x6d, 0x81})
		}, []string{"a bcache device"}},
		{"zfs", func(b []byte) { copy(b[128<<10+3<<10:], []byte{0x0c, 0xb1, 0xba, 0x00, 0, 0, 0, 0}) }, []string{"a ZFS pool member"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := image(tc.plant)
			got := detect(img[:min(len(img), probeHead)], img[len(img)-probeTail:], int64(len(img)))
			assert.Equal(t, tc.want, got)
		})
	}
	// md 0.90 and 1.0 superblocks at the end.
	img := image(func(b []byte) {})
	size := int64(len(img))
	off090 := (size & ^int64(64<<10-1)) - 64<<10
	copy(img[off090:], []byte{0xfc, 0x4e, 0x2b, 0xa9})
	assert.Equal(t, []string{"an md RAID member (superblock 0.90)"}, detect(img[:probeHead], img[size-probeTail:], size))

	p := filepath.Join(t.TempDir(), "img")
	require.NoError(t, os.WriteFile(p, image(func(b []byte) { copy(b, "XFSB") }), 0o644))
	got, err := Signatures(p)
	require.NoError(t, err)
	assert.Equal(t, []string{"an XFS filesystem"}, got)
}

func FuzzDetect(f *testing.F) {
	f.Add(make([]byte, 8192), int64(8192))
	f.Fuzz(func(t *testing.T, b []byte, size int64) {
		if size < 0 || size > 1<<40 {
			return
		}
		detect(b, b, size) // never panics, whatever the bytes
	})
}
