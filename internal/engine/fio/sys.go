package fio

import (
	"net"
	"runtime"
	"time"
)

func netDialer() *net.Dialer { return &net.Dialer{Timeout: 3 * time.Second} }

func numCPU() int { return runtime.NumCPU() }
