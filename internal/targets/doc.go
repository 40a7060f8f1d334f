// Package targets turns the targets a user names into an opened engine and
// the devices behind it: the one place that knows which engine drives which
// kind of target.
//
// It works in two steps. Check reads the target specs (a block device,
// file:PATH[:SIZE], sim[:MODEL]), the engine asked for and the fio servers,
// inspects the targets and, for a run that writes, puts them to the safety
// gate with the --destroy-data confirmations (device.ErrUnsafe when one is
// refused). Its result, a Plan, is a checked target set of one Kind:
// simulated drives, block devices and files on this host, or targets on the
// hosts of fio servers. Making a Plan changes nothing; ptsrun plan prints
// one.
//
// Plan.Open holds the block devices it will write with O_EXCL, makes file
// targets that do not exist yet and opens the engine (sim, native or fio)
// on the run directory: a Set, which lets go of the devices when closed.
// The Plan also builds what the PTS purge and the write-cache control need
// for its kind of targets (precondition.Purger, engine.WriteCacher),
// including the gate of a purge that would erase more than the targets (the
// whole disk of a partition, every namespace of an NVMe controller), and
// describes the engine for run.json before it is opened.
//
// The package sits beside precondition in the data flow (docs/architecture.md): it knows
// devices, engines and purges, and nothing of the PTS tests that pts runs
// on what it opens.
package targets
