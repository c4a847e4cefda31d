// A fixture for the layer check: core may include nothing of bitwire's, and this names the stack.
#pragma once
#include "bitwire/stack/server.hpp"
