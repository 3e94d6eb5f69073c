package mail

import (
	"testing"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"
)

func TestMain(m *testing.M) { e2etest.Main(m, "mail") }
