// Package archtest holds the module's architecture as data, and the tests that hold the code
// and the documents to it: which package may import which, which packages are leaves, what the
// SDK pulls into a user's build. ARCHITECTURE.md explains the reasons.
package archtest
