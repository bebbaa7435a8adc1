package main

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sms "github.com/seedsms/sms-go"
)

func TestVersionOf(t *testing.T) {
	t.Parallel()
	devel := "v" + sms.Version() + "-devel"
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	tests := []struct {
		name string
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{"a release, from go install ...@v1.2.3", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, true, "v1.2.3"},
		{"a build from a clean checkout", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("3f2b9c1e8d4a4c2e9b7f", "false")}, true, devel + " (3f2b9c1e8d4a)"},
		{"a build from a modified checkout", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("3f2b9c1e", "true")}, true, devel + " (3f2b9c1e, modified)"},
		{"a build without VCS information", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, devel},
		{"no build information", nil, false, devel},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, versionOf(tt.info, tt.ok), tt.name)
	}
}

func TestVersionFlag(t *testing.T) {
	t.Parallel()
	r := runCLI(t, map[string]string{}, "", "--version")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "sms version "+version()+"\n", r.stdout)
	assert.Regexp(t, `^v\d+\.\d+\.\d+`, version())
}
