// Package pgtest starts a throwaway PostgreSQL server for tests: Debian's postgresql, in a
// temporary directory, listening on a unix socket only, run as the postgres user when the
// tests run as root (initdb refuses root). The journal's tests in package sms and the
// example's tests in examples/bulk-k8s use it; it registers pgx's database/sql driver "pgx",
// which no package outside the tests imports.
package pgtest

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

	_ "github.com/jackc/pgx/v5/stdlib" // the database/sql driver "pgx"
)

// envFsync, set to any value, makes the server sync its commits to disk as a production
// server does (fsync on), for benchmarks of what a commit costs; without it the server does
// not sync, which spares the tests' time.
const envFsync = "SMS_PGTEST_FSYNC"

// Server is one PostgreSQL server shared by the tests of a package, started by the first
// test that asks for a database. The zero Server is ready to use; TestMain calls Stop.
type Server struct {
	once sync.Once
	dir  string // its socket's directory; "" when it could not start
	why  string // why it could not
	stop func()
}

// DSN returns the data source name of a new, empty database of the server, named after the
// test. Without PostgreSQL (no initdb, or no user to run it as) the test is skipped, or
// fails when the environment variable CI is set: in CI a missing tool fails, never skips.
func (s *Server) DSN(t testing.TB) string {
	t.Helper()
	s.once.Do(s.start)
	if s.dir == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("PostgreSQL is needed in CI (apt-get install postgresql): %s", s.why)
		}
		t.Skipf("no PostgreSQL: %s", s.why)
	}
	admin, err := sql.Open("pgx", s.dsn("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := "t_" + strings.ToLower(strings.NewReplacer("/", "_", " ", "_", "-", "_").Replace(t.Name()))
	name = name[:min(len(name), 50)] + "_" + strconv.FormatInt(time.Now().UnixNano()%1e9, 10)
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	return s.dsn(name)
}

// DB returns a new, empty database of the server (see DSN), closed when the test ends.
func (s *Server) DB(t testing.TB) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", s.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func (s *Server) dsn(db string) string {
	return "host=" + s.dir + " user=postgres dbname=" + db + " sslmode=disable"
}

// Stop stops the server, if one started, and removes its directory.
func (s *Server) Stop() {
	if s.stop != nil {
		s.stop()
	}
}

// start runs initdb and pg_ctl start, as the postgres user when this process is root.
func (s *Server) start() {
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	initdb := ""
	if len(bins) > 0 {
		initdb = bins[len(bins)-1]
	} else if p, err := exec.LookPath("initdb"); err == nil {
		initdb = p
	}
	if initdb == "" {
		s.why = "initdb not found"
		return
	}
	bin := filepath.Dir(initdb)
	run := func(args ...string) *exec.Cmd { return exec.Command(args[0], args[1:]...) }
	dir, err := os.MkdirTemp("", "sms-pgtest")
	if err != nil {
		s.why = err.Error()
		return
	}
	if os.Geteuid() == 0 { // root cannot run postgres
		u, err := user.Lookup("postgres")
		if err != nil {
			s.why = "running as root, and no postgres user to run PostgreSQL as"
			return
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			s.why = err.Error()
			return
		}
		run = func(args ...string) *exec.Cmd {
			return exec.Command("runuser", append([]string{"-u", "postgres", "--"}, args...)...)
		}
	}
	data := filepath.Join(dir, "data")
	if out, err := run(filepath.Join(bin, "initdb"), "-D", data, "-A", "trust", "-U", "postgres", "--no-sync").CombinedOutput(); err != nil {
		s.why = fmt.Sprintf("initdb: %v: %s", err, out)
		return
	}
	opts := "-k " + dir + " -c listen_addresses="
	if os.Getenv(envFsync) == "" {
		opts += " -F" // no fsync: the tests' data need not survive a crash
	}
	start := run(filepath.Join(bin, "pg_ctl"), "-D", data, "-l", filepath.Join(dir, "log"), "-w", "-t", "120", "-o", opts, "start")
	if out, err := start.CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		s.why = fmt.Sprintf("pg_ctl start: %v: %s %s", err, out, log)
		return
	}
	s.dir = dir
	s.stop = func() {
		_ = run(filepath.Join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop").Run()
		_ = os.RemoveAll(dir)
	}
}
