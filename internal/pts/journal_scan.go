package pts

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
)

// scanBatch is how many lines a decoder takes at a time: enough that the
// hand-over costs nothing beside the JSON, few enough that the records in
// flight are a small part of a long journal.
const scanBatch = 256

// batch is a run of journal lines, decoded by one of ScanJournal's
// decoders; done is closed when recs (or err) is ready.
type batch struct {
	first int // the line number of lines[0]
	lines [][]byte
	recs  []*Record
	err   error
	done  chan struct{}
}

// ScanJournal reads a journal line by line, passing each record to f as
// it is read and in its order, so that a reader keeps only what it uses of
// a long journal: ReadJournal's lines, cut last line and errors. f's record
// is its own. The lines are decoded by one decoder per CPU ahead of f
// (decoding JSON is most of reading a journal), a few batches at most.
func ScanJournal(r io.Reader, o ScanOptions, f func(*Record) error) (cut bool, err error) {
	workers := runtime.GOMAXPROCS(0)
	order := make(chan *batch, 2*workers) // batches in the journal's order
	work := make(chan *batch, 2*workers)
	stop := make(chan struct{})
	defer close(stop)
	var readCut bool
	var readErr error
	go func() { // the reader: lines into batches, handed out in order
		defer close(order)
		defer close(work)
		send := func(b *batch) bool {
			select {
			case order <- b:
			case <-stop:
				return false
			}
			select {
			case work <- b:
				return true
			case <-stop:
				return false
			}
		}
		br := bufio.NewReaderSize(r, 256<<10)
		var long []byte // a line longer than br's buffer
		line := 0
		b := &batch{first: 1, done: make(chan struct{})}
		for {
			text, err := br.ReadSlice('\n')
			if errors.Is(err, bufio.ErrBufferFull) {
				long = append(long, text...)
				continue
			}
			if long != nil {
				text, long = append(long, text...), nil
			}
			if err == io.EOF {
				readCut = len(text) > 0
				break
			}
			if err != nil {
				readErr = err
				break
			}
			line++
			if len(b.lines) == 0 {
				b.first = line
			}
			b.lines = append(b.lines, bytes.Clone(text)) // br reuses its buffer
			if len(b.lines) == scanBatch {
				if !send(b) {
					return
				}
				b = &batch{done: make(chan struct{})}
			}
		}
		if len(b.lines) > 0 {
			send(b)
		}
	}()
	for range workers {
		go func() {
			for b := range work {
				b.recs = make([]*Record, 0, len(b.lines))
				for i, text := range b.lines {
					if text = bytes.TrimSpace(text); len(text) == 0 {
						continue
					}
					rec, err := decodeRecord(text, o)
					if err == nil && rec.Type == "" {
						err = errors.New("record without a type")
					}
					if err != nil {
						b.err = fmt.Errorf("line %d: %w", b.first+i, err)
						break
					}
					b.recs = append(b.recs, rec)
				}
				b.lines = nil
				close(b.done)
			}
		}()
	}
	for b := range order {
		<-b.done
		for _, rec := range b.recs {
			if err := f(rec); err != nil {
				return false, err
			}
		}
		if b.err != nil {
			return false, b.err
		}
	}
	// order is closed: the reader has finished, its results are set.
	if readErr != nil {
		return false, readErr
	}
	return readCut, nil
}
