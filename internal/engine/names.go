package engine

// Engine names: what --engine takes and run.json's configuration records.
// Every package names the engines by these.
const (
	Native = "native" // pure Go on this host: io_uring, or a pread/pwrite pool
	Fio    = "fio"    // fio on this host, or fio servers on others
	Sim    = "sim"    // the simulated drive
)
