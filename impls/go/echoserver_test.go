package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"
)

// echoTestServer is one served call, in this process, over pipes for stdin and stdout.
type echoTestServer struct {
	stdin *io.PipeWriter
	lines *bufio.Scanner
	port  int
	done  chan error
}

func startEcho(t *testing.T, model string, waitUs int) *echoTestServer {
	t.Helper()
	argv := []string{"echo-server", "--model", model, "--wait-us", strconv.Itoa(waitUs)}
	if echoTakesWorkers[model] {
		argv = append(argv, "--workers", "2")
	}
	args, workload, err := parseArgs(argv, allWorkloads())
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	server := &echoTestServer{stdin: inW, lines: bufio.NewScanner(outR), done: make(chan error, 1)}
	go func() {
		server.done <- workload.Serve(args, inR, outW)
		outW.Close()
	}()
	var ready struct {
		Ready string `json:"ready"`
		Port  int    `json:"port"`
	}
	if !server.lines.Scan() || json.Unmarshal(server.lines.Bytes(), &ready) != nil || ready.Ready != "none" {
		t.Fatalf("%s: no ready line: %q", model, server.lines.Text())
	}
	server.port = ready.Port
	t.Cleanup(func() { server.close(t) })
	return server
}

func (s *echoTestServer) connect(t *testing.T) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(s.port))
	if err != nil {
		t.Fatal(err)
	}
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	return conn
}

func (s *echoTestServer) stats(t *testing.T, variant int) map[string]any {
	t.Helper()
	io.WriteString(s.stdin, strconv.Itoa(variant)+"\n")
	var line map[string]any
	if !s.lines.Scan() || json.Unmarshal(s.lines.Bytes(), &line) != nil {
		t.Fatalf("no stats line: %q", s.lines.Text())
	}
	return line
}

// close ends stdin; the server must return nil within 2 s, with the listener closed.
func (s *echoTestServer) close(t *testing.T) {
	if s.stdin.Close() != nil || s.done == nil {
		return
	}
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("serve returned %v at the end of stdin", err)
		}
	case <-time.After(5 * time.Second):
		t.Errorf("serve did not return at the end of stdin")
	}
	s.done = nil
}

func sendEcho(t *testing.T, conn net.Conn, id uint32, payload []byte) {
	t.Helper()
	request := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, id), uint32(len(payload)))
	if _, err := conn.Write(append(request, payload...)); err != nil {
		t.Fatal(err)
	}
}

func wantReply(t *testing.T, conn net.Conn, id uint32, payload []byte) {
	t.Helper()
	got := make([]byte, 8+len(payload))
	if _, err := io.ReadFull(conn, got); err != nil {
		t.Fatalf("reply to %d: %v", id, err)
	}
	reversed := slices.Clone(payload)
	slices.Reverse(reversed)
	want := append(binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, id), uint32(len(payload))), reversed...)
	if !bytes.Equal(got, want) {
		t.Fatalf("reply to %d: %x, want %x", id, got, want)
	}
}

func wantClosed(t *testing.T, conn net.Conn) {
	t.Helper()
	if n, err := conn.Read(make([]byte, 100)); !errors.Is(err, io.EOF) {
		t.Fatalf("connection not closed: %d bytes, %v", n, err)
	}
}

// echoAtOnce is how many connections a model serves at once in these tests (pool: --workers 2).
var echoAtOnce = map[string]int{"seq": 1, "pool": 2}

func TestEchoSpecVector(t *testing.T) {
	for _, model := range echoServerWorkload.Models {
		server := startEcho(t, model, 0)
		conn := server.connect(t)
		sendEcho(t, conn, 1, []byte("abc"))
		got := make([]byte, 11)
		io.ReadFull(conn, got)
		if !bytes.Equal(got, []byte("\x00\x00\x00\x01\x00\x00\x00\x03cba")) {
			t.Errorf("%s: %x", model, got)
		}
		conn.Close()
	}
}

func TestEchoRandomPayloadsOverConcurrentConnectionsThenTheStatsLine(t *testing.T) {
	for _, model := range echoServerWorkload.Models {
		server := startEcho(t, model, 2000)
		atOnce := cmpOr(echoAtOnce[model], 6)
		replies := 0
		for range 2 { // in lockstep: no more connections than the model serves at once
			conns := make([]net.Conn, atOnce)
			for i := range conns {
				conns[i] = server.connect(t)
			}
			for request := range 4 {
				payloads := make([][]byte, len(conns))
				for i, conn := range conns {
					payloads[i] = make([]byte, request*100+i)
					rand.Read(payloads[i])
					sendEcho(t, conn, uint32(1000*i+request), payloads[i])
				}
				for i, conn := range conns {
					wantReply(t, conn, uint32(1000*i+request), payloads[i])
					replies++
				}
			}
			for _, conn := range conns {
				conn.Close()
			}
		}
		line := server.stats(t, 7)
		extra := line["extra"].(map[string]any)
		if line["rep"] != 7.0 || line["items"] != float64(replies) || line["checksum"] != "served" ||
			extra["replies"] != float64(replies) || extra["accepted"] != float64(2*atOnce) {
			t.Errorf("%s: %v, want %d replies on %d connections", model, line, replies, 2*atOnce)
		}
		if again := server.stats(t, 8); again["items"] != 0.0 {
			t.Errorf("%s: counted again: %v", model, again)
		}
	}
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

func TestEchoALenOver65536ClosesThatConnectionOnly(t *testing.T) {
	for _, model := range echoServerWorkload.Models {
		server := startEcho(t, model, 0)
		bad := server.connect(t)
		bad.Write([]byte{0, 0, 0, 2, 0, 1, 0, 1}) // len 65,537
		wantClosed(t, bad)
		bad.Close()
		good := server.connect(t)
		sendEcho(t, good, 3, []byte("xy"))
		wantReply(t, good, 3, []byte("xy"))
		good.Close()
	}
}

func TestEchoAShortRequestAtEOFGetsNoReply(t *testing.T) {
	for _, model := range echoServerWorkload.Models {
		conn := startEcho(t, model, 0).connect(t)
		conn.Write([]byte{0, 0, 0, 4, 0, 0, 0, 10, 'a', 'b', 'c'})
		conn.(*net.TCPConn).CloseWrite()
		wantClosed(t, conn)
		conn.Close()
	}
}

// With wait_us 2,000 and 20 connections kept open, a concurrent model answers every one (in
// reverse order here); seq answers only the first, pool its first two, until one is closed.
func TestEchoTheWaitHoldsOnlyWhatTheModelServesAtOnce(t *testing.T) {
	for _, model := range echoServerWorkload.Models {
		server := startEcho(t, model, 2000)
		conns := make([]net.Conn, 20)
		for i := range conns {
			conns[i] = server.connect(t)
			sendEcho(t, conns[i], uint32(i), []byte("wait"))
		}
		atOnce := cmpOr(echoAtOnce[model], len(conns))
		for i := atOnce - 1; i >= 0; i-- {
			wantReply(t, conns[i], uint32(i), []byte("wait"))
		}
		if atOnce < len(conns) {
			conns[atOnce].SetReadDeadline(time.Now().Add(300 * time.Millisecond))
			if _, err := conns[atOnce].Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Errorf("%s: connection %d answered while the first stayed open (%v)", model, atOnce, err)
			}
			conns[0].Close()
			conns[atOnce].SetReadDeadline(time.Now().Add(20 * time.Second))
			wantReply(t, conns[atOnce], uint32(atOnce), []byte("wait"))
		}
		for _, conn := range conns {
			conn.Close()
		}
	}
}

// wait_us 200,000 on 20 connections at once: a server that waits for one connection at a time
// cannot answer the 20th before 20 × 200 ms however fast the machine is; a concurrent one answers
// all about 200 ms after they were sent (the bound is the serial floor, not a speed).
func TestEchoTheWaitsOf20ConnectionsOverlap(t *testing.T) {
	for _, model := range []string{"threads", "goroutines"} {
		server := startEcho(t, model, 200_000)
		conns := make([]net.Conn, 20)
		started := time.Now()
		for i := range conns {
			conns[i] = server.connect(t)
			sendEcho(t, conns[i], uint32(i), []byte("overlap"))
		}
		for i, conn := range conns {
			wantReply(t, conn, uint32(i), []byte("overlap"))
			conn.Close()
		}
		if elapsed := time.Since(started); elapsed >= 20*200*time.Millisecond {
			t.Errorf("%s: 20 waits of 200 ms took %v, as if one after another", model, elapsed)
		}
	}
}

// threads makes an OS thread per open connection; goroutines does not (40 connections, one
// exchange each so every one is being served, against the process's Threads count).
func TestEchoThreadsMakesAnOSThreadPerOpenConnection(t *testing.T) {
	const open = 40
	for _, model := range []string{"threads", "goroutines"} {
		server := startEcho(t, model, 0)
		server.stats(t, 0)
		conns := make([]net.Conn, open)
		for i := range conns {
			conns[i] = server.connect(t)
			sendEcho(t, conns[i], uint32(i), []byte("t"))
			wantReply(t, conns[i], uint32(i), []byte("t"))
		}
		now := osThreads()
		for _, conn := range conns {
			conn.Close()
		}
		peak := server.stats(t, 1)["extra"].(map[string]any)["threads_peak"].(float64)
		// threads_peak is sampled every 5 ms, so it may miss 40 connections open for a moment.
		if model == "threads" && (now < open+1 || peak < 1) {
			t.Errorf("threads: %d threads now, peak %v with %d connections open", now, peak, open)
		}
		if model == "goroutines" && now >= open {
			t.Errorf("goroutines: %d threads with %d connections open", now, open)
		}
	}
}

func TestEchoEndOfStdinEndsTheServerWithAConnectionOpen(t *testing.T) {
	for _, model := range echoServerWorkload.Models {
		server := startEcho(t, model, 0)
		conn := server.connect(t)
		sendEcho(t, conn, 1, []byte("abc"))
		wantReply(t, conn, 1, []byte("abc"))
		server.close(t)
		if again, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(server.port)); err == nil {
			again.Close()
			t.Errorf("%s: still listening after the end of stdin", model)
		}
		conn.Close()
	}
}

func TestEchoBadArgumentsAreUsageErrors(t *testing.T) {
	for _, argv := range [][]string{{"--wait-us", "-1"}, {"--wait-us", "10000001"}, {"--port", "70000"}, {"--workers", "2"}} {
		args, workload, err := parseArgs(append([]string{"echo-server", "--model", "seq"}, argv...), allWorkloads())
		if err == nil {
			err = workload.Serve(args, bytes.NewReader(nil), io.Discard)
		}
		var usage *UsageError
		if !errors.As(err, &usage) {
			t.Errorf("%v: %v, want a usage error", argv, err)
		}
	}
}
