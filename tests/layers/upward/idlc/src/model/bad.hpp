// A fixture for the layer check: the model is the bottom of idlc and may not include the front end.
#pragma once
#include "frontend/ast.hpp"
