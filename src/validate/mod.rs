//! Structural validation of a kernel: the region rules of 5_operands, the table's type
//! rules, labels resolved, operands in range of their variables. Each finding names the
//! instruction (index) and the rule.

pub mod region;
