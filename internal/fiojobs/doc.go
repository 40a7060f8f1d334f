// Package fiojobs is `ptsrun fio`: a user's own fio job files, read by fio
// itself, judged by the gate and run one after the other, each in a fio of
// its own, confined to what the gate let it write.
//
// The gate (gate.go, where its rules are written out) takes fio's reading
// of the job files, refuses every option whose effect it does not model,
// finds where every path a job writes or reads leads (paths.go) and judges
// it against device's safety gate and the --destroy-data confirmations
// (judge.go). Open reads the job files, has
// fio read them and puts them to the gate; Jobs.Run (run.go) judges them
// all again before each job file runs, holds the block devices it writes
// (hold.go) and runs its fio under Landlock rules made of the gate's
// verdicts (confine.go), then reads fio's output into a result per
// reporting group.
//
// It opens no target set and knows nothing of the PTS: the run directory
// that records what ran is rundir's, and custom runs the command.
package fiojobs
