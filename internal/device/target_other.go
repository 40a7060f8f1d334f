//go:build !linux

package device

import (
	"errors"
	"os"
)

// Real targets need Linux (block-device ioctls, O_DIRECT, sysfs); elsewhere
// ptsrun runs its simulated drives only.
var errNotLinux = errors.New("real targets need Linux; the simulated drive (sim) runs anywhere")

func deviceNumber(string) (string, bool, error)                 { return "", false, errNotLinux }
func blockGeometry(string) (int64, int64, bool, error)          { return 0, 0, false, errNotLinux }
func fsInfo(string) (fsDetails, error)                          { return fsDetails{}, errNotLinux }
func allocate(*os.File, int64) error                            { return errNotLinux }
func checkDirectIO(string) error                                { return errNotLinux }
func loopStatus(string, string) (uint64, uint64, string, error) { return 0, 0, "", errNotLinux }

// MountRoot says path is where a mount is attached: Linux's to tell.
func MountRoot(path string) (bool, error) { return false, errNotLinux }
