// Intentionally empty: the target exists only to export CFuzzerDriver.h to Swift.
#include "CFuzzerDriver.h"
