//! Where a netlist's LUTs go: each LUT4 of a synthesized design (the
//! flow's `ditto.json`) is charged to the registers its output reaches
//! through combinational logic, so a design's logic can be read register
//! by register ("the lane's `d_reg` takes 175 LUT4") instead of as one
//! total.
//!
//! A LUT is followed forward through LUTs, wide-function muxes
//! (`PFUMX`, `L6MUX21`) and carry cells (`CCU2C`, `SB_CARRY`) until it
//! reaches flip-flops (`TRELLIS_FF`, `SB_DFF*`), the top module's output
//! ports, or any other cell (a block RAM's inputs, named by its type). A
//! flip-flop is named by the net on its output, without its bit index, and
//! by the pin it is reached on when that is not its data input (`.CE`,
//! `.LSR`, `.R`, ...). A LUT that reaches one name is charged to it; one
//! that reaches several is charged to `shared by N` (several registers
//! use its output). With `merge_instances`, instance numbers (`$3` in
//! `groups$3.engines$1.d_reg`) become `$*`, so the lanes of a hasher add
//! up to one line per register of a lane.
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// LUT4s charged to one name (see the module comment).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LutCharge {
    pub name: String,
    pub luts: u64,
}

#[derive(Deserialize)]
struct Netlist {
    modules: BTreeMap<String, Module>,
}

#[derive(Deserialize)]
struct Module {
    #[serde(default)]
    attributes: BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    ports: BTreeMap<String, Port>,
    #[serde(default)]
    cells: BTreeMap<String, Cell>,
    #[serde(default)]
    netnames: BTreeMap<String, NetName>,
}

#[derive(Deserialize)]
struct Port {
    direction: String,
    bits: Vec<serde_json::Value>,
}

#[derive(Deserialize)]
struct Cell {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    port_directions: BTreeMap<String, String>,
    #[serde(default)]
    connections: BTreeMap<String, Vec<serde_json::Value>>,
}

#[derive(Deserialize)]
struct NetName {
    #[serde(default)]
    hide_name: u8,
    bits: Vec<serde_json::Value>,
}

fn is_lut(kind: &str) -> bool {
    kind == "LUT4" || kind == "SB_LUT4"
}

fn is_flip_flop(kind: &str) -> bool {
    kind == "TRELLIS_FF" || kind.starts_with("SB_DFF")
}

fn passes_through(kind: &str) -> bool {
    is_lut(kind) || matches!(kind, "PFUMX" | "L6MUX21" | "CCU2C" | "SB_CARRY")
}

/// A flip-flop's data input, on either family.
fn is_data_pin(kind: &str, pin: &str) -> bool {
    match kind {
        "TRELLIS_FF" => pin == "DI",
        _ => pin == "D",
    }
}

/// `name[12]` without its index; `$3` instance numbers as `$*` when asked.
fn register_name(net: &str, merge_instances: bool) -> String {
    let base = match net.rfind('[') {
        Some(open) if net.ends_with(']') => &net[..open],
        _ => net,
    };
    if !merge_instances {
        return base.to_string();
    }
    let mut out = String::with_capacity(base.len());
    let mut chars = base.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '$' && chars.peek().is_some_and(char::is_ascii_digit) {
            while chars.peek().is_some_and(char::is_ascii_digit) {
                chars.next();
            }
            out.push('*');
        }
    }
    out
}

/// Sink names, each with a number.
#[derive(Default)]
struct Names {
    list: Vec<String>,
    ids: HashMap<String, usize>,
}

impl Names {
    fn id(&mut self, name: String) -> usize {
        if let Some(&id) = self.ids.get(&name) {
            return id;
        }
        self.list.push(name.clone());
        self.ids.insert(name, self.list.len() - 1);
        self.list.len() - 1
    }
}

/// Sinks a LUT reaches, up to this many distinct names (more are "shared").
const MAX_SINKS: usize = 8;

/// What a combinational cell's output reaches.
#[derive(Clone)]
enum Reach {
    /// These names (at most [`MAX_SINKS`]).
    Names(BTreeSet<usize>),
    /// More than [`MAX_SINKS`] names, or a loop through carry pins.
    Many,
}

impl Reach {
    fn add(&mut self, id: usize) {
        if let Reach::Names(set) = self {
            set.insert(id);
            if set.len() > MAX_SINKS {
                *self = Reach::Many;
            }
        }
    }
}

/// Charges every LUT4 of module `top` (default: the module yosys marked
/// as the top) in a yosys JSON netlist to the names it reaches (see the
/// module comment); largest first, then by name.
pub fn luts_by_register(
    netlist_json: &str,
    top: Option<&str>,
    merge_instances: bool,
) -> Result<Vec<LutCharge>, String> {
    let netlist: Netlist = serde_json::from_str(netlist_json).map_err(|e| format!("not a yosys JSON netlist: {e}"))?;
    let module = match top {
        Some(top) => netlist.modules.get(top).ok_or_else(|| format!("the netlist has no module `{top}`"))?,
        None => {
            let mut tops = netlist.modules.values().filter(|m| m.attributes.contains_key("top"));
            match (tops.next(), tops.next()) {
                (Some(module), None) => module,
                _ => {
                    let names: Vec<&str> = netlist.modules.keys().map(String::as_str).collect();
                    return Err(format!("no single top module marked in the netlist; name one of {names:?}"));
                }
            }
        }
    };
    let bit = |v: &serde_json::Value| v.as_u64();

    // Each bit's name: the shortest visible net name that carries it.
    let mut bit_name: HashMap<u64, &str> = HashMap::new();
    for (name, net) in &module.netnames {
        if net.hide_name != 0 {
            continue;
        }
        for b in net.bits.iter().filter_map(bit) {
            let keep = bit_name.get(&b).is_some_and(|old| old.len() <= name.len());
            if !keep {
                bit_name.insert(b, name);
            }
        }
    }
    let cells: Vec<(&String, &Cell)> = module.cells.iter().collect();
    // Who reads each bit: (cell index, pin).
    let mut readers: HashMap<u64, Vec<(usize, &str)>> = HashMap::new();
    for (index, (_, cell)) in cells.iter().enumerate() {
        for (pin, direction) in &cell.port_directions {
            if direction == "input" {
                for b in cell.connections.get(pin).into_iter().flatten().filter_map(bit) {
                    readers.entry(b).or_default().push((index, pin));
                }
            }
        }
    }
    let mut output_bits: HashMap<u64, &str> = HashMap::new();
    for (name, port) in &module.ports {
        if port.direction == "output" {
            for b in port.bits.iter().filter_map(bit) {
                output_bits.insert(b, name);
            }
        }
    }
    let outputs_of = |cell: &Cell| -> Vec<u64> {
        cell.port_directions
            .iter()
            .filter(|(_, d)| *d == "output")
            .flat_map(|(pin, _)| cell.connections.get(pin).into_iter().flatten().filter_map(bit))
            .collect()
    };

    // Names interned, and each pass-through cell's reach memoised
    // (`None`: not known yet). The combinational cells form a DAG.
    let mut names = Names::default();
    let mut memo: Vec<Option<Reach>> = vec![None; cells.len()];
    let mut charges: BTreeMap<String, u64> = BTreeMap::new();
    for start in 0..cells.len() {
        if !is_lut(&cells[start].1.kind) {
            continue;
        }
        // Depth-first, iterative: a cell's sinks are known once all its
        // readers' are.
        let mut stack = vec![(start, false)];
        while let Some((index, expanded)) = stack.pop() {
            if memo[index].is_some() {
                continue;
            }
            let cell = cells[index].1;
            let outs = outputs_of(cell);
            if !expanded {
                stack.push((index, true));
                for b in &outs {
                    for &(reader, _) in readers.get(b).into_iter().flatten() {
                        if passes_through(&cells[reader].1.kind) && memo[reader].is_none() {
                            stack.push((reader, false));
                        }
                    }
                }
                continue;
            }
            let mut sinks = Reach::Names(BTreeSet::new());
            for b in &outs {
                if output_bits.contains_key(b) {
                    sinks.add(names.id("(outputs)".into()));
                }
                for &(reader, pin) in readers.get(b).into_iter().flatten() {
                    let kind = cells[reader].1.kind.as_str();
                    if passes_through(kind) {
                        match memo[reader].as_ref() {
                            Some(Reach::Names(set)) => {
                                for &id in set {
                                    sinks.add(id);
                                }
                            }
                            // A reader with too many sinks, or one still
                            // being expanded (a loop through carry pins).
                            Some(Reach::Many) | None => sinks = Reach::Many,
                        }
                    } else if is_flip_flop(kind) {
                        let q = cells[reader].1.connections.get("Q").and_then(|q| q.first()).and_then(bit);
                        let net = q.and_then(|q| bit_name.get(&q)).copied().unwrap_or(cells[reader].0.as_str());
                        let mut name = register_name(net, merge_instances);
                        if !is_data_pin(kind, pin) {
                            name.push('.');
                            name.push_str(pin);
                        }
                        sinks.add(names.id(name));
                    } else {
                        sinks.add(names.id(format!("({kind} inputs)")));
                    }
                }
            }
            memo[index] = Some(sinks);
        }
        let label = match memo[start].as_ref() {
            Some(Reach::Names(set)) if set.len() == 1 => names.list[*set.iter().next().expect("one sink")].clone(),
            Some(Reach::Names(set)) if set.is_empty() => "(nothing: unused)".to_string(),
            Some(Reach::Names(set)) => format!("(shared by {})", set.len()),
            _ => format!("(shared by more than {MAX_SINKS})"),
        };
        *charges.entry(label).or_insert(0) += 1;
    }
    let mut out: Vec<LutCharge> = charges.into_iter().map(|(name, luts)| LutCharge { name, luts }).collect();
    out.sort_by(|a, b| b.luts.cmp(&a.luts).then_with(|| a.name.cmp(&b.name)));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-written netlist: LUT a feeds LUT b, which feeds register
    /// `lane$0.x` (data) and, through a `PFUMX`, register `lane$1.x`; LUT c
    /// feeds only `lane$1.x`'s enable; LUT d drives an output port.
    const NETLIST: &str = r#"{"modules": {"top": {
        "attributes": {"top": "00000000000000000000000000000001"},
        "ports": {"o": {"direction": "output", "bits": [9]}},
        "cells": {
            "a": {"type": "LUT4", "port_directions": {"A": "input", "Z": "output"}, "connections": {"A": [1], "Z": [2]}},
            "b": {"type": "LUT4", "port_directions": {"A": "input", "Z": "output"}, "connections": {"A": [2], "Z": [3]}},
            "m": {"type": "PFUMX", "port_directions": {"ALUT": "input", "Z": "output"}, "connections": {"ALUT": [3], "Z": [4]}},
            "f0": {"type": "TRELLIS_FF", "port_directions": {"DI": "input", "CE": "input", "Q": "output"}, "connections": {"DI": [3], "CE": [1], "Q": [5]}},
            "f1": {"type": "TRELLIS_FF", "port_directions": {"DI": "input", "CE": "input", "Q": "output"}, "connections": {"DI": [4], "CE": [6], "Q": [7]}},
            "c": {"type": "LUT4", "port_directions": {"A": "input", "Z": "output"}, "connections": {"A": [5], "Z": [6]}},
            "d": {"type": "LUT4", "port_directions": {"A": "input", "Z": "output"}, "connections": {"A": [7], "Z": [9]}}
        },
        "netnames": {
            "lane$0.x": {"hide_name": 0, "bits": [5]},
            "lane$1.x[3]": {"hide_name": 0, "bits": [7]},
            "$abc$42": {"hide_name": 1, "bits": [7]}
        }
    }}}"#;

    fn charges(merge: bool) -> Vec<(String, u64)> {
        luts_by_register(NETLIST, None, merge).unwrap().into_iter().map(|c| (c.name, c.luts)).collect()
    }

    #[test]
    fn each_lut_is_charged_to_the_registers_it_reaches() {
        let got = charges(false);
        assert_eq!(
            got,
            vec![("(shared by 2)".to_string(), 2), ("(outputs)".to_string(), 1), ("lane$1.x.CE".to_string(), 1),],
            "a and b reach both registers; c the enable; d the port"
        );
    }

    #[test]
    fn instances_merge_into_one_line_per_register() {
        assert_eq!(register_name("groups$3.engines$12.d_reg$q[31]", true), "groups$*.engines$*.d_reg$q");
        assert_eq!(register_name("groups$3.engines$12.d_reg$q[31]", false), "groups$3.engines$12.d_reg$q");
        assert_eq!(register_name("a$b", true), "a$b");
        let got = charges(true);
        assert_eq!(got[0], ("lane$*.x".to_string(), 2), "both lanes' x are one name: {got:?}");
    }

    #[test]
    fn a_missing_module_or_bad_text_is_an_error() {
        assert_eq!(
            luts_by_register(NETLIST, Some("top"), false).unwrap(),
            luts_by_register(NETLIST, None, false).unwrap()
        );
        assert!(luts_by_register(NETLIST, Some("nope"), true).unwrap_err().contains("no module `nope`"));
        assert!(luts_by_register("{", None, true).unwrap_err().contains("not a yosys JSON netlist"));
        let unmarked = NETLIST.replace(r#""attributes": {"top": "00000000000000000000000000000001"},"#, "");
        assert!(luts_by_register(&unmarked, None, true).unwrap_err().contains("no single top module"));
    }
}
