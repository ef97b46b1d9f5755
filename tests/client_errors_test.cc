#include "tests/client_test_base.h"
