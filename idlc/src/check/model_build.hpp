// The decisions the model makes once, after the checker has resolved a struct or a package, so that
// back ends only print: initial values, what a read resets, fixed-width runs, the MessageType storage.
#pragma once

#include "model/model.hpp"

namespace idlc::model {

// Fills Field::initial, Item::resets, Struct::runs and Item::then_runs / else_runs of a checked struct.
// Iterative: the depth of nested ifs costs no stack.
void complete_struct(Struct& s);

// Fills Package::message_type_storage from the message count.
void complete_package(Package& package);

}  // namespace idlc::model
