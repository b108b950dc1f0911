// echo-server: a TCP server on 127.0.0.1 that answers each request with its payload reversed after
// wait_us µs, in seq, threads, goroutines or pool (workloads/echo-server.md; its conversation is docs/protocol.md's).
package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

const (
	echoMaxPayload = 65536
	echoMaxWaitUs  = 10_000_000
	// A stats line waits (this long at most) until every connection it counted is closed on the
	// server's side too: the client may have read the last reply before its goroutine counted it.
	echoSettle = 2 * time.Second
)

var echoServerWorkload = &Workload{
	Name:   "echo-server",
	Params: []Param{{"wait-us", "0", false}, {"port", "0", false}},
	Models: []string{"seq", "threads", "goroutines", "pool"},
	ModelInfo: map[string]Model{
		"seq":     {Family: "seq", Detail: echoDetails["seq"]},
		"threads": {Family: "threads", Detail: echoDetails["threads"], Flags: "debug.SetMaxThreads(10000), the default"},
		"goroutines": {Family: "green", Workers: echoTakesWorkers["goroutines"], Detail: echoDetails["goroutines"],
			StartUnavailable: echoNoStartModes},
		"pool": {Family: "pool", Workers: echoTakesWorkers["pool"], Detail: echoDetails["pool"],
			StartUnavailable: echoNoStartModes},
	},
	Serve: serveEchoServer,
}

// A server starts its threads before its ready line and is timed by its client, round by round.
var echoNoStartModes = map[string]string{
	"cold": "a server makes its threads before its ready line; its rounds are timed by the load generator, not by a start",
	"warm": "a server's threads are made once, before its ready line, for every round: there is no per-round start to keep warm",
}

var echoTakesWorkers = map[string]bool{"goroutines": true, "pool": true}

var echoDetails = map[string]string{
	"seq": "one connection at a time: the accept loop serves a connection to its end (net.Conn, io.ReadFull) before it accepts the next",
	"threads": "one goroutine per connection locked to its own OS thread (runtime.LockOSThread, never unlocked, so the " +
		"thread ends with it), blocking read(2)/write(2) on the socket put in blocking mode, time.Sleep for the wait",
	"goroutines": "one goroutine per connection over GOMAXPROCS (--workers) scheduler threads: net.Conn on Go's netpoller " +
		"(epoll), io.ReadFull, time.Sleep for the wait",
	"pool": "--workers goroutines each locked to its own OS thread, each accepting and serving one connection at a time " +
		"with blocking read(2)/write(2)",
}

// echoTally counts what a stats line reports; every connection's goroutine updates it at once.
type echoTally struct {
	accepted, replies, open, threadsPeak atomic.Int64
}

func (t *echoTally) opened() { t.accepted.Add(1); t.open.Add(1) }

func (t *echoTally) sawThreads(count int64) {
	for {
		peak := t.threadsPeak.Load()
		if count <= peak || t.threadsPeak.CompareAndSwap(peak, count) {
			return
		}
	}
}

// sampleThreads keeps threadsPeak: /proc/self/status's Threads every 5 ms, on the runtime's own threads.
func (t *echoTally) sampleThreads(done <-chan struct{}) {
	ticker := time.NewTicker(5 * time.Millisecond)
	defer ticker.Stop()
	for {
		t.sawThreads(osThreads())
		select {
		case <-done:
			return
		case <-ticker.C:
		}
	}
}

// take is one stats line's extra, counted since the line before, once the connections settled.
func (t *echoTally) take() map[string]any {
	deadline := time.Now().Add(echoSettle)
	for t.open.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	current := osThreads()
	peak := max(t.threadsPeak.Swap(current), current)
	return map[string]any{"accepted": t.accepted.Swap(0), "replies": t.replies.Swap(0), "threads_peak": peak}
}

func osThreads() int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(status), "\n") {
		if count, ok := strings.CutPrefix(line, "Threads:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(count), 10, 64)
			return n
		}
	}
	return 0
}

// echoReply is the spec's reply: the request's header, then its payload back to front.
func echoReply(header [8]byte, payload []byte) []byte {
	reply := make([]byte, 8+len(payload))
	copy(reply, header[:])
	for i, b := range payload {
		reply[len(reply)-1-i] = b
	}
	return reply
}

// serveEchoStream serves one connection to its end: exactly 8 header bytes, exactly len payload
// bytes (io.ReadFull never asks for more, so the next request stays in the kernel), the wait,
// one write. EOF, a len over the limit or a reset ends it quietly.
func serveEchoStream(conn io.ReadWriter, wait time.Duration, tally *echoTally) {
	var header [8]byte
	for {
		if _, err := io.ReadFull(conn, header[:]); err != nil {
			return
		}
		length := binary.BigEndian.Uint32(header[4:])
		if length > echoMaxPayload {
			return
		}
		payload := make([]byte, length)
		if _, err := io.ReadFull(conn, payload); err != nil {
			return
		}
		if wait > 0 {
			time.Sleep(wait)
		}
		if _, err := conn.Write(echoReply(header, payload)); err != nil {
			return
		}
		tally.replies.Add(1)
	}
}

// blockingFd is a socket in blocking mode read and written by plain system calls, so the
// calling thread itself blocks (the threads and pool models), not a goroutine on the netpoller.
type blockingFd int

func (fd blockingFd) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(int(fd), p)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (fd blockingFd) Write(p []byte) (int, error) {
	written := 0
	for written < len(p) {
		n, err := syscall.Write(int(fd), p[written:])
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return written, err
		}
		written += n
	}
	return written, nil
}

// serveEchoBlocking serves the connection with blocking system calls on the calling (locked) thread.
func serveEchoBlocking(conn net.Conn, wait time.Duration, tally *echoTally) {
	defer closeEcho(conn, tally)
	raw, err := conn.(*net.TCPConn).SyscallConn()
	if err != nil {
		return
	}
	raw.Control(func(fd uintptr) {
		if syscall.SetNonblock(int(fd), false) == nil {
			serveEchoStream(blockingFd(fd), wait, tally)
		}
	})
}

func serveEchoConn(conn net.Conn, wait time.Duration, tally *echoTally) {
	defer closeEcho(conn, tally)
	serveEchoStream(conn, wait, tally)
}

func closeEcho(conn net.Conn, tally *echoTally) {
	conn.Close()
	tally.open.Add(-1)
}

// acceptEcho hands every accepted connection, counted, to serve, until the listener is closed.
func acceptEcho(listener net.Listener, tally *echoTally, serve func(net.Conn)) {
	for {
		conn, err := listener.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			fmt.Fprintln(os.Stderr, "echo-server accept:", err) // out of file descriptors: keep serving
			time.Sleep(time.Millisecond)
			continue
		}
		tally.opened()
		serve(conn)
	}
}

// startEchoModel starts the model's machinery on the listener: its accept loop(s), its threads.
func startEchoModel(model string, workers int, listener net.Listener, wait time.Duration, tally *echoTally) {
	switch model {
	case "seq":
		go acceptEcho(listener, tally, func(conn net.Conn) { serveEchoConn(conn, wait, tally) })
	case "goroutines":
		go acceptEcho(listener, tally, func(conn net.Conn) { go serveEchoConn(conn, wait, tally) })
	case "threads":
		go acceptEcho(listener, tally, func(conn net.Conn) {
			go func() {
				runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
				serveEchoBlocking(conn, wait, tally)
			}()
		})
	case "pool":
		for range workers {
			go func() {
				runtime.LockOSThread()
				acceptEcho(listener, tally, func(conn net.Conn) { serveEchoBlocking(conn, wait, tally) })
			}()
		}
	}
}

func echoIntArg(args *Args, name string, high int) (int, error) {
	value, err := strconv.Atoi(args.String(name))
	if err != nil || value < 0 || value > high {
		return 0, usagef("--%s must be an integer from 0 to %d, got %q", name, high, args.String(name))
	}
	return value, nil
}

// serveEchoServer is the whole conversation: listen, start the model, the ready line, one stats
// line per stdin line, and at end of stdin the listener closed and a return (the process exits).
func serveEchoServer(args *Args, stdin io.Reader, stdout io.Writer) error {
	waitUs, err := echoIntArg(args, "wait-us", echoMaxWaitUs)
	if err != nil {
		return err
	}
	port, err := echoIntArg(args, "port", 65535)
	if err != nil {
		return err
	}
	if args.Model == "goroutines" {
		runtime.GOMAXPROCS(args.Workers)
	}
	// Go's listener sets SO_REUSEADDR and takes net.core.somaxconn as its backlog.
	listener, err := net.Listen("tcp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("echo-server cannot listen on 127.0.0.1:%d: %w", port, err)
	}
	defer listener.Close()
	tally := &echoTally{}
	done := make(chan struct{})
	defer close(done)
	go tally.sampleThreads(done)
	startEchoModel(args.Model, args.Workers, listener, time.Duration(waitUs)*time.Microsecond, tally)
	extra := map[string]any{"model_detail": echoDetails[args.Model], "gomaxprocs": runtime.GOMAXPROCS(0)}
	if echoTakesWorkers[args.Model] {
		extra["workers"] = args.Workers
	}
	encoder := json.NewEncoder(stdout)
	if err := encoder.Encode(map[string]any{"ready": "none", "port": listener.Addr().(*net.TCPAddr).Port, "extra": extra}); err != nil {
		return err
	}
	lines := bufio.NewReader(stdin)
	for i := 0; ; i++ {
		variant, more, err := readVariant(lines, i)
		if !more || err != nil {
			return err
		}
		served := tally.take()
		line := map[string]any{"rep": variant, "items": served["replies"], "checksum": "served", "extra": served}
		if err := encoder.Encode(line); err != nil {
			return err
		}
	}
}
