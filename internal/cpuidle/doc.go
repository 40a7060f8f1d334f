// Package cpuidle keeps the host's idle CPUs quick to wake while ptsrun
// measures a device, and says what the host's idle states are.
//
// An idle CPU that sleeps in a deep state (a C-state, or a halted virtual
// CPU) takes microseconds to wake, and at a low queue depth every I/O
// waits for one: the device's worker or its interrupt lands on a sleeping
// CPU, and the completion wakes the thread that waits for it, often on
// another. That is the host's latency, not the device's, and it varies
// run to run with where the scheduler puts the threads. On a 2-CPU KVM
// guest whose idle CPUs halt (the haltpoll driver, guest_halt_poll_ns 0),
// 4 KiB reads at TC1/QD1 from a memory-backed loop device took 12–17 µs
// under fio and 15–21 µs under the native engine as the host had it, and
// 7.8–8.7 µs and 5.8–7.5 µs with the idle CPUs kept polling.
//
// Linux's PM QoS CPU latency request (/dev/cpu_dma_latency) is the
// interface for this: while a process holds the file open with a value
// written to it, cpuidle enters no state whose exit latency is longer; at
// 0 the idle CPUs poll. It is what tuned's latency-performance profile
// and cyclictest use. The kernel drops the request when the file is
// closed, by the process or by its death, so a killed run leaves the host
// as it was. It needs root (the file is 0600); without it the hold is not
// taken and State says why.
//
// Setting is what --cpu-idle asks: "shallow" (the default, 0 µs), "host"
// (leave the host's idle states alone: to measure what an application on
// this host sees), or a duration, the longest wake-up allowed. Take
// holds it for the target set's life (targets.Set); State goes into
// run.json's host record and the report's Test Platform column.
package cpuidle
