package sqldb_test

import (
	"context"
	"database/sql/driver"
	"errors"
)

// nullConnector is a driver with no engine; it connects to nothing.
type nullConnector struct{}

func (nullConnector) Connect(context.Context) (driver.Conn, error) {
	return nil, errors.New("no database")
}
func (nullConnector) Driver() driver.Driver { return nullDriver{} }

type nullDriver struct{}

func (nullDriver) Open(string) (driver.Conn, error) { return nil, errors.New("no database") }
