package main

import (
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The journal's PostgreSQL, as the SDK's tests start it: the example's tests need one too.

func TestMain(m *testing.M) {
	code := m.Run()
	stopPostgres()
	os.Exit(code)
}

// postgres is one PostgreSQL server for the tests of the package, started by the first test
// that needs it, in a temporary directory, listening on a unix socket only.
var postgres struct {
	once sync.Once
	dir  string // its socket's directory; "" when it could not start
	why  string // why it could not
	stop func()
}

// postgresDSN returns the DSN of a new database of the tests' PostgreSQL server. Without PostgreSQL (its
// initdb not found, or no user to run it as) the test is skipped, or fails when CI is set.
func postgresDSN(t *testing.T) string {
	t.Helper()
	postgres.once.Do(startPostgres)
	if postgres.dir == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("PostgreSQL is needed in CI (apt-get install postgresql): %s", postgres.why)
		}
		t.Skipf("no PostgreSQL: %s", postgres.why)
	}
	admin, err := sql.Open("pgx", "host="+postgres.dir+" user=postgres dbname=postgres sslmode=disable")
	require.NoError(t, err)
	defer admin.Close()
	name := "t_" + strings.ToLower(strings.NewReplacer("/", "_", " ", "_", "-", "_").Replace(t.Name()))
	name = name[:min(len(name), 50)] + "_" + strconv.FormatInt(time.Now().UnixNano()%1e9, 10)
	_, err = admin.Exec("CREATE DATABASE " + name)
	require.NoError(t, err)
	return "host=" + postgres.dir + " user=postgres dbname=" + name + " sslmode=disable"
}

// startPostgres runs initdb and pg_ctl start, as the postgres user when this process is root.
func startPostgres() {
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	initdb := ""
	if len(bins) > 0 {
		initdb = bins[len(bins)-1]
	} else if p, err := exec.LookPath("initdb"); err == nil {
		initdb = p
	}
	if initdb == "" {
		postgres.why = "initdb not found"
		return
	}
	bin := filepath.Dir(initdb)
	run := func(args ...string) *exec.Cmd { return exec.Command(args[0], args[1:]...) }
	dir, err := os.MkdirTemp("", "sms-journal-pg")
	if err != nil {
		postgres.why = err.Error()
		return
	}
	if os.Geteuid() == 0 { // root cannot run postgres
		u, err := user.Lookup("postgres")
		if err != nil {
			postgres.why = "running as root, and no postgres user to run PostgreSQL as"
			return
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			postgres.why = err.Error()
			return
		}
		run = func(args ...string) *exec.Cmd {
			return exec.Command("runuser", append([]string{"-u", "postgres", "--"}, args...)...)
		}
	}
	data := filepath.Join(dir, "data")
	if out, err := run(filepath.Join(bin, "initdb"), "-D", data, "-A", "trust", "-U", "postgres", "--no-sync").CombinedOutput(); err != nil {
		postgres.why = fmt.Sprintf("initdb: %v: %s", err, out)
		return
	}
	start := run(filepath.Join(bin, "pg_ctl"), "-D", data, "-l", filepath.Join(dir, "log"), "-w", "-t", "120",
		"-o", "-k "+dir+" -c listen_addresses= -F", "start")
	if out, err := start.CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		postgres.why = fmt.Sprintf("pg_ctl start: %v: %s %s", err, out, log)
		return
	}
	postgres.dir = dir
	postgres.stop = func() {
		_ = run(filepath.Join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop").Run()
		_ = os.RemoveAll(dir)
	}
}

// stopPostgres stops the tests' PostgreSQL server, if one started; TestMain calls it.
func stopPostgres() {
	if postgres.stop != nil {
		postgres.stop()
	}
}
