package cli

// version is this tree's version, by CHANGELOG.md: its newest release
// heading (## [vX.Y.Z] - date), followed by "+dev" while its [Unreleased]
// section has entries, that is, while the tree holds changes made since
// that release. Semver build metadata, not a pre-release suffix: v0.4.0+dev
// is v0.4.0 and more, where v0.4.0-dev would sort before v0.4.0.
// TestVersionMatchesChangelog fails when the two disagree, so that
// releasing edits both: the new heading here without "+dev", and "+dev"
// back with the next entry under Unreleased.
const version = "v0.4.0+dev"

// Version is the version that `einvoice version` and serve's startup line
// print: version unless the build sets another, as a release build does with
// -ldflags "-X github.com/einvoice/einvoice/internal/cli.Version=v0.5.0".
// It must stay initialised by a constant: the linker's -X sets only those.
var Version = version

// versionString is the line `einvoice version` prints.
func versionString() string { return "einvoice " + Version }
