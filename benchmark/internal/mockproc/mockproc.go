// Package mockproc runs the sms-mockserver binary for the load programs: it starts the
// process, reads its startup line, finds free loopback addresses, waits for a listener and
// reads a process's resident memory from /proc (so Linux only).
package mockproc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Mock is a running sms-mockserver process.
type Mock struct {
	Cmd        *exec.Cmd
	Addr       string // host:port, always on loopback
	URL        string `json:"url"`
	LiveKey    string `json:"liveKey"`
	LiveSecret string `json:"liveSecret"`
}

// Start runs the binary at path with args (which must include an -addr on 127.0.0.1), reads
// the JSON startup line it prints, which comes once the mock listens. The rest of its standard
// output is discarded; its standard error goes to ours.
func Start(path string, args ...string) (*Mock, error) {
	m := &Mock{Cmd: exec.Command(path, args...)}
	m.Cmd.Stderr = os.Stderr
	out, err := m.Cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := m.Cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadBytes('\n')
	if err != nil {
		m.Stop()
		return nil, fmt.Errorf("no startup line: %w", err)
	}
	if err := json.Unmarshal(line, m); err != nil {
		m.Stop()
		return nil, fmt.Errorf("startup line %q: %w", line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	m.Addr = strings.TrimPrefix(m.URL, "http://")
	if host, _, _ := net.SplitHostPort(m.Addr); host != "127.0.0.1" {
		m.Stop()
		return nil, fmt.Errorf("the mock is not on loopback: %s", m.Addr)
	}
	return m, nil
}

// Stop interrupts the mock and waits for it to exit, killing it after 5 seconds.
func (m *Mock) Stop() {
	_ = m.Cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = m.Cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = m.Cmd.Process.Kill()
		<-done
	}
}

// RSSKB is the mock's resident memory in kB, see [RSSKB].
func (m *Mock) RSSKB() (int, error) { return RSSKB(m.Cmd.Process.Pid) }

// RSSKB is the resident memory of process pid in kB, VmRSS from /proc/pid/status.
func RSSKB(pid int) (int, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
		}
	}
	return 0, errors.New("no VmRSS in /proc/" + strconv.Itoa(pid) + "/status")
}

// FreeAddr returns a loopback address that nothing listened on a moment ago.
func FreeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer func() { _ = ln.Close() }()
	return ln.Addr().String(), nil
}

// WaitListening waits up to 5 seconds for something to accept connections on addr.
func WaitListening(addr string) error {
	for range 100 {
		if c, err := net.Dial("tcp", addr); err == nil {
			_ = c.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("nothing listens on %s", addr)
}

// clockTicks is the unit of the CPU times in /proc/pid/stat: USER_HZ, 100 on Linux.
const clockTicks = 100

// CPUTime is the CPU time process pid has used so far, user and system, from /proc/pid/stat
// (to the 10 ms of its clock ticks).
func CPUTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces: the fields counted start after it.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, errors.New("no command name in /proc/" + strconv.Itoa(pid) + "/stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, errors.New("short /proc/" + strconv.Itoa(pid) + "/stat")
	}
	var ticks int64
	for _, s := range f[11:13] { // utime and stime, fields 14 and 15 of the whole line
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, err
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}
