package engine

// Target is one block device or file that an engine doing real I/O
// drives (native and fio alike), on this host or, for fio, on the host of
// a fio server. The simulated drive has targets of its own kind.
type Target struct {
	Name         string // as the user named it
	Path         string // the file or device on the host that does the I/O
	Size         int64  // bytes; 0 when unknown (a target on a fio server)
	LogicalBlock int64  // bytes; offsets and sizes are multiples of it
	Server       string // "host:port" of the fio server whose host does the I/O; "" for this host
}
