// Only configured by the subproject test (nothing is built), so the build tree stays small.
#include "game.hpp"

int main() { return game::PlayerInput{} == game::PlayerInput{} ? 0 : 1; }
