package main

import (
	"runtime/debug"

	sms "github.com/seedsms/sms-go"
)

// version is the command's version, for sms --version.
func version() string {
	info, ok := debug.ReadBuildInfo()
	return versionOf(info, ok)
}

// versionOf reads the version from the build information: the module's version when the
// command was built from a release (go install github.com/seedsms/sms-go/cmd/sms@v1.2.3 gives
// "v1.2.3"). A build from a checkout has none ("(devel)"): then it is the SDK's version marked
// as a development build, with the commit and whether the tree was modified when the build
// recorded them ("v0.1.0-devel (3f2b9c1e8d4a, modified)").
func versionOf(info *debug.BuildInfo, ok bool) string {
	if ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	v := "v" + sms.Version() + "-devel"
	if !ok {
		return v
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return v
	}
	v += " (" + rev[:min(len(rev), 12)]
	if modified == "true" {
		v += ", modified"
	}
	return v + ")"
}
