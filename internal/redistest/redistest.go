// Package redistest starts a real redis-server for a test: on a free port
// of the loopback, with a password, its files in the test's temporary
// folder, stopped when the test ends. Tests of the shared store use it,
// never a fake: what they check is what Redis does. A machine without
// redis-server fails the test (internal/testenv's rule; the setup step
// installs Debian's package).
package redistest

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/vkbench/vkbench/internal/testenv"
)

// Password is every test server's password.
const Password = "vkbench-test-password"

// Server is a redis-server a test started.
type Server struct {
	tb   testing.TB
	dir  string
	port int
	tls  bool // it speaks TLS only
	cmd  *exec.Cmd
	// exited is closed when the process ends.
	exited chan struct{}
}

// Start starts a redis-server for tb and stops it when tb ends.
func Start(tb testing.TB) *Server {
	tb.Helper()
	return start(tb, false)
}

// StartTLS starts a redis-server, as Start, that speaks TLS only, with a
// certificate of its own that no machine trusts: its URLs are rediss://,
// and a client that would use it adds skip_verify=true.
func StartTLS(tb testing.TB) *Server {
	tb.Helper()
	return start(tb, true)
}

func start(tb testing.TB, tls bool) *Server {
	tb.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		testenv.Unavailable(tb, "redistest: no redis-server on PATH (Debian's package redis-server)")
	}
	s := &Server{tb: tb, dir: tb.TempDir(), tls: tls}
	if tls {
		s.writeCertificate()
	}
	// A free port is free only until the server binds it: another process
	// may take it in between, so a port that turns out taken is given up
	// for another.
	for try := 1; ; try++ {
		s.port = freePort(tb)
		err := s.start()
		if err == nil {
			break
		}
		if !errors.Is(err, errPortTaken) || try == maxPortTries {
			tb.Fatal(err)
		}
	}
	tb.Cleanup(func() { s.Stop() })
	return s
}

// maxPortTries bounds the ports Start tries.
const maxPortTries = 5

// errPortTaken is start's error when another process holds the port.
var errPortTaken = errors.New("redistest: the port is taken")

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

// start runs the server on s.port and waits until it answers. Only this
// server's answer counts: a server of another test that took the port
// answers too, with the same password.
func (s *Server) start() error {
	listen := fmt.Sprintf("port %d\n", s.port)
	if s.tls {
		listen = fmt.Sprintf("port 0\ntls-port %d\ntls-cert-file %s\ntls-key-file %s\ntls-auth-clients no\n",
			s.port, filepath.Join(s.dir, "cert.pem"), filepath.Join(s.dir, "key.pem"))
	}
	conf := fmt.Sprintf("%sbind 127.0.0.1\nrequirepass %s\ndir %s\nsave \"\"\nappendonly no\nlogfile %s\n",
		listen, Password, s.dir, s.logPath())
	path := filepath.Join(s.dir, "redis.conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		return err
	}
	// Each try logs afresh, so that a bind error read below is this try's.
	if err := os.Remove(s.logPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	s.cmd = exec.Command("redis-server", path)
	s.exited = make(chan struct{})
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("redistest: starting redis-server: %w", err)
	}
	go func(cmd *exec.Cmd, exited chan struct{}) {
		_ = cmd.Wait() // killed at the end: its status says nothing
		close(exited)
	}(s.cmd, s.exited)
	deadline := time.Now().Add(30 * time.Second)
	for !s.answers() {
		select {
		case <-s.exited:
			s.cmd = nil
			log, _ := os.ReadFile(s.logPath())
			if bytes.Contains(log, []byte("Address already in use")) {
				return fmt.Errorf("%w: %d", errPortTaken, s.port)
			}
			return fmt.Errorf("redistest: redis-server exited at start:\n%s", log)
		default:
		}
		if time.Now().After(deadline) {
			s.Stop()
			return errors.New("redistest: redis-server did not answer within 30 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

func (s *Server) logPath() string { return filepath.Join(s.dir, "redis.log") }

// writeCertificate writes a self-signed certificate for 127.0.0.1 and its
// key, cert.pem and key.pem, into the server's folder.
func (s *Server) writeCertificate() {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		s.tb.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour)}
	cert, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		s.tb.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		s.tb.Fatal(err)
	}
	for name, b := range map[string]*pem.Block{"cert.pem": {Type: "CERTIFICATE", Bytes: cert}, "key.pem": {Type: "PRIVATE KEY", Bytes: der}} {
		if err := os.WriteFile(filepath.Join(s.dir, name), pem.EncodeToMemory(b), 0o600); err != nil {
			s.tb.Fatal(err)
		}
	}
}

// client is a connection pool to the server, authenticated, for this
// package's own questions, each bounded by timeout.
func (s *Server) client(timeout time.Duration) *goredis.Client {
	opts := &goredis.Options{Addr: s.Addr(), Password: Password,
		DialTimeout: timeout, ReadTimeout: timeout, WriteTimeout: timeout, MaxRetries: -1, DisableIdentity: true,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}}
	if s.tls {
		opts.TLSConfig = &tls.Config{InsecureSkipVerify: true} // its own certificate, which it made
	}
	return goredis.NewClient(opts)
}

// answers reports whether this server, the process s started, answers an
// authenticated question.
func (s *Server) answers() bool {
	c := s.client(time.Second)
	defer func() { _ = c.Close() }()
	info, err := c.InfoMap(context.Background(), "server").Result()
	return err == nil && info["Server"]["process_id"] == strconv.Itoa(s.cmd.Process.Pid)
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
func (s *Server) DefaultURL() string {
	scheme := "redis"
	if s.tls {
		scheme = "rediss"
	}
	return scheme + "://:" + Password + "@" + s.Addr() + "/0"
}

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
	if err := s.start(); err != nil {
		s.tb.Fatal(err)
	}
}

// Pause stops the server's process (SIGSTOP): it accepts connections
// and answers nothing, as a server that hangs. It returns once every
// thread of the process is stopped: kill returns before that, and a
// thread that the stop has not reached yet could still answer. Resume
// continues it.
func (s *Server) Pause() { s.signal(syscall.SIGSTOP, true) }

// Resume continues a paused server, and returns once none of its threads
// is stopped. Neither does anything to a stopped server.
func (s *Server) Resume() { s.signal(syscall.SIGCONT, false) }

// settleTimeout bounds how long Pause and Resume wait for the threads: a
// loaded machine may leave a thread waiting for a processor that long.
const settleTimeout = 30 * time.Second

// signal sends sig to the server's process and waits until every thread
// of it is stopped, where stop, else until none is, as Linux's
// /proc/PID/task/*/stat says (state T).
func (s *Server) signal(sig syscall.Signal, stop bool) {
	s.tb.Helper()
	if s.cmd == nil {
		return // stopped
	}
	if err := s.cmd.Process.Signal(sig); err != nil {
		s.tb.Fatalf("redistest: %v: %v", sig, err)
	}
	want := "all stopped"
	if !stop {
		want = "none stopped"
	}
	for deadline := time.Now().Add(settleTimeout); ; time.Sleep(time.Millisecond) {
		states, settled, err := threadStates(s.cmd.Process.Pid, stop)
		switch {
		case err != nil:
			s.tb.Fatalf("redistest: after %v: %v", sig, err)
		case settled:
			return
		case time.Now().After(deadline):
			s.tb.Fatalf("redistest: %v: redis-server's threads are not %s after %v (thread and state): %s", sig, want, settleTimeout, states)
		}
	}
}

// threadStates reads the state of each thread of process pid ("TID S"),
// and reports whether every one of them is stopped (T), where stop, else
// whether none is. A thread that ended counts as either.
func threadStates(pid int, stop bool) (states string, settled bool, err error) {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return "", false, err
	}
	settled = true
	var list []string
	for _, task := range tasks {
		stat, err := os.ReadFile(filepath.Join(dir, task.Name(), "stat"))
		if errors.Is(err, fs.ErrNotExist) {
			continue // the thread ended
		} else if err != nil {
			return "", false, err
		}
		// "TID (COMMAND) STATE ...": the command may hold ") ".
		i := bytes.LastIndex(stat, []byte(") "))
		if i < 0 || i+2 >= len(stat) {
			return "", false, fmt.Errorf("%s/%s/stat: no state in %q", dir, task.Name(), stat)
		}
		state := stat[i+2]
		list = append(list, fmt.Sprintf("%s %c", task.Name(), state))
		if ended := state == 'Z' || state == 'X'; !ended && (state == 'T') != stop {
			settled = false
		}
	}
	return strings.Join(list, ", "), settled, nil
}

// Clients returns the connections the server has from clients, leaving
// out the one that asks (CLIENT LIST): those of the process under test,
// since nothing else connects to a test's server.
func (s *Server) Clients() []string {
	s.tb.Helper()
	c := s.client(30 * time.Second)
	defer func() { _ = c.Close() }()
	conn := c.Conn() // one connection, to ask for its own ID
	defer func() { _ = conn.Close() }()
	ctx := context.Background()
	id, err := conn.ClientID(ctx).Result()
	if err != nil {
		s.tb.Fatalf("redistest: CLIENT ID: %v", err)
	}
	list, err := conn.ClientList(ctx).Result()
	if err != nil {
		s.tb.Fatalf("redistest: CLIENT LIST: %v", err)
	}
	self := fmt.Sprintf("id=%d ", id)
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(list), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, self) {
			out = append(out, l)
		}
	}
	return out
}
