//! Optimizer configuration loaded from `branchwise.toml`.

use std::collections::HashMap;
use std::fmt;

/// Default number of rounds before the optimizer gives up.
pub const DEFAULT_ROUNDS: u32 = 16;

static GREETING: &str = "hello";

/// Thresholds and switches for the optimizer.
#[derive(Debug, Clone)]
pub struct Config {
    /// Rounds to run.
    pub rounds: u32,
    pub thresholds: HashMap<String, f64>,
}

/// How aggressively to optimize.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Level {
    Low,
    High { boost: u8 },
}

pub type Thresholds = HashMap<String, f64>;

/// Something that can be tuned.
pub trait Tunable {
    /// Apply one tuning step.
    fn tune(&mut self, step: u32) -> bool;

    fn reset(&mut self) {
        self.tune(0);
    }
}

impl Config {
    /// Build a config with default thresholds.
    pub fn new() -> Self {
        Config { rounds: DEFAULT_ROUNDS, thresholds: HashMap::new() }
    }

    /// The thresholds the optimizer compares against.
    pub fn optimizer_thresholds(&self) -> &HashMap<String, f64> {
        &self.thresholds
    }
}

impl Tunable for Config {
    fn tune(&mut self, step: u32) -> bool {
        self.rounds += step;
        self.rounds < 100
    }
}

impl fmt::Display for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Config({})", self.rounds)
    }
}

impl<T: Clone> From<Vec<T>> for Wrapper<T> {
    fn from(items: Vec<T>) -> Self {
        Wrapper(items)
    }
}

pub fn load(path: &str) -> Result<Config, String> {
    fn parse_line(line: &str) -> Option<(String, f64)> {
        let (k, v) = line.split_once('=')?;
        Some((k.trim().to_string(), v.trim().parse().ok()?))
    }
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let mut config = Config::new();
    for line in text.lines() {
        if let Some((k, v)) = parse_line(line) {
            config.thresholds.insert(k, v);
        }
    }
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_empty() {
        assert!(Config::new().optimizer_thresholds().is_empty());
    }
}
