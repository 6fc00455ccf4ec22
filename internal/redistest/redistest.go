// Package redistest starts a real redis-server for a test: on a free port
// of the loopback, with a password, its files in the test's temporary
// folder, stopped when the test ends. Tests of the shared store use it,
// never a fake: what they check is what Redis does. A machine without
// redis-server fails the test (internal/testenv's rule; the setup step
// installs Debian's package).
package redistest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vkbench/vkbench/internal/testenv"
)

// Password is every test server's password.
const Password = "vkbench-test-password"

// Server is a redis-server a test started.
type Server struct {
	tb   testing.TB
	dir  string
	port int
	cmd  *exec.Cmd
	// exited is closed when the process ends.
	exited chan struct{}
}

// Start starts a redis-server for tb and stops it when tb ends.
func Start(tb testing.TB) *Server {
	tb.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		testenv.Unavailable(tb, "redistest: no redis-server on PATH (Debian's package redis-server)")
	}
	s := &Server{tb: tb, dir: tb.TempDir()}
	s.port = freePort(tb)
	s.start()
	tb.Cleanup(func() { s.Stop() })
	return s
}

// freePort returns a loopback port no one listens on now.
func freePort(tb testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		tb.Fatal(err)
	}
	return port
}

// start runs the server on s.port and waits until it answers.
func (s *Server) start() {
	s.tb.Helper()
	conf := fmt.Sprintf("port %d\nbind 127.0.0.1\nrequirepass %s\ndir %s\nsave \"\"\nappendonly no\nlogfile %s\n",
		s.port, Password, s.dir, filepath.Join(s.dir, "redis.log"))
	path := filepath.Join(s.dir, "redis.conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		s.tb.Fatal(err)
	}
	s.cmd = exec.Command("redis-server", path)
	s.exited = make(chan struct{})
	if err := s.cmd.Start(); err != nil {
		s.tb.Fatalf("redistest: starting redis-server: %v", err)
	}
	go func(cmd *exec.Cmd, exited chan struct{}) {
		_ = cmd.Wait() // killed at the end: its status says nothing
		close(exited)
	}(s.cmd, s.exited)
	deadline := time.Now().Add(30 * time.Second)
	for !s.answers() {
		select {
		case <-s.exited:
			log, _ := os.ReadFile(filepath.Join(s.dir, "redis.log"))
			s.tb.Fatalf("redistest: redis-server exited at start:\n%s", log)
		default:
		}
		if time.Now().After(deadline) {
			s.tb.Fatal("redistest: redis-server did not answer within 30 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// answers reports whether the server answers an authenticated PING.
func (s *Server) answers() bool {
	c, err := net.DialTimeout("tcp", s.Addr(), time.Second)
	if err != nil {
		return false
	}
	defer func() { _ = c.Close() }()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := fmt.Fprintf(c, "AUTH %s\r\nPING\r\n", Password); err != nil {
		return false
	}
	r := bufio.NewReader(c)
	for range 2 {
		line, err := r.ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "+") {
			return false
		}
	}
	return true
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return fmt.Sprintf("127.0.0.1:%d", s.port) }

// patient are the timeouts of URL: a test that expects the server to
// answer must not fail because a loaded machine did not run it for a
// second.
const patient = "?dial_timeout=10s&read_timeout=10s&write_timeout=10s"

// URL is the store URL of the server's database 0, with the password and
// patient timeouts; append more parameters with "&".
func (s *Server) URL() string { return s.DefaultURL() + patient }

// DefaultURL is the URL with the timeouts every user gets, for tests of
// a server that does not answer.
func (s *Server) DefaultURL() string { return "redis://:" + Password + "@" + s.Addr() + "/0" }

// URLWithout is URL without a password.
func (s *Server) URLWithout() string { return "redis://" + s.Addr() + "/0" + patient }

// Stop kills the server (SIGKILL: nothing is saved, as in a crash) and
// waits for it to end; stopping a stopped server does nothing.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGCONT) // a paused process must run to die
	_ = s.cmd.Process.Kill()
	<-s.exited
	s.cmd = nil
}

// Restart starts the server again, empty, on the same port.
func (s *Server) Restart() {
	s.tb.Helper()
	s.Stop()
	s.start()
}

// Pause stops the server's process (SIGSTOP): it accepts connections
// and answers nothing, as a server that hangs. Resume continues it.
func (s *Server) Pause() { s.signal(syscall.SIGSTOP) }

// Resume continues a paused server. Neither does anything to a stopped
// one.
func (s *Server) Resume() { s.signal(syscall.SIGCONT) }

func (s *Server) signal(sig syscall.Signal) {
	s.tb.Helper()
	if s.cmd == nil {
		return // stopped
	}
	if err := s.cmd.Process.Signal(sig); err != nil {
		s.tb.Fatalf("redistest: %v: %v", sig, err)
	}
}

// Clients returns the connections the server has from clients, leaving
// out the one that asks (CLIENT LIST): those of the process under test,
// since nothing else connects to a test's server.
func (s *Server) Clients() []string {
	s.tb.Helper()
	c, err := net.DialTimeout("tcp", s.Addr(), 10*time.Second)
	if err != nil {
		s.tb.Fatalf("redistest: %v", err)
	}
	defer func() { _ = c.Close() }()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := fmt.Fprintf(c, "AUTH %s\r\nCLIENT ID\r\nCLIENT LIST\r\n", Password); err != nil {
		s.tb.Fatalf("redistest: %v", err)
	}
	r := bufio.NewReader(c)
	var lines [3]string
	for i := range lines {
		if lines[i], err = r.ReadString('\n'); err != nil {
			s.tb.Fatalf("redistest: CLIENT LIST: %v", err)
		}
	}
	var size int
	if !strings.HasPrefix(lines[0], "+OK") || !strings.HasPrefix(lines[1], ":") || !strings.HasPrefix(lines[2], "$") {
		s.tb.Fatalf("redistest: CLIENT LIST answered %q", lines)
	}
	if _, err := fmt.Sscanf(lines[2], "$%d", &size); err != nil {
		s.tb.Fatalf("redistest: CLIENT LIST answered %q: %v", lines[2], err)
	}
	list := make([]byte, size)
	if _, err := io.ReadFull(r, list); err != nil {
		s.tb.Fatalf("redistest: CLIENT LIST: %v", err)
	}
	self := "id=" + strings.TrimSpace(lines[1][1:]) + " "
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(list)), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, self) {
			out = append(out, l)
		}
	}
	return out
}
