//! How a persona plays its own moves, as its card names it: the move
//! brain's kind, and for a pipeline its agents.

use serde::{Deserialize, Serialize};

/// A persona's move brain as its card names it; checked when the card loads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum BrainKind {
    #[default]
    Engine,
    Llm,
    /// The agents, e.g. `p+e+pl+m`.
    Pipeline(String),
}

/// One agent of a move pipeline (`moves::pipeline`), as a persona names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentKind {
    /// Proposes a strategy and a key move from its own side.
    Player,
    /// Reviews the proposal from the opponent's side and rates it.
    Enemy,
    /// Turns the surviving strategy into one concrete move.
    Planner,
    /// Reads the analysis and prints one UCI move; no tools.
    Mover,
}

impl AgentKind {
    pub fn parse(word: &str) -> Option<AgentKind> {
        match word {
            "p" | "player" => Some(AgentKind::Player),
            "e" | "enemy" => Some(AgentKind::Enemy),
            "pl" | "planner" => Some(AgentKind::Planner),
            "m" | "mover" => Some(AgentKind::Mover),
            _ => None,
        }
    }

    /// A pipeline's agents from `p+e+pl+m` (or full names joined by `+`).
    pub fn parse_all(spec: &str) -> Result<Vec<AgentKind>, String> {
        let agents = spec
            .split('+')
            .map(|w| AgentKind::parse(w.trim()).ok_or_else(|| format!("unknown agent {w:?} (p, e, pl, m)")))
            .collect::<Result<Vec<_>, _>>()?;
        if agents.is_empty() {
            return Err("a pipeline needs at least one agent".into());
        }
        Ok(agents)
    }
}

impl TryFrom<String> for BrainKind {
    type Error = String;

    fn try_from(s: String) -> Result<Self, String> {
        match s.split_once(':').map_or((s.as_str(), None), |(k, a)| (k, Some(a))) {
            ("engine", None) => Ok(BrainKind::Engine),
            ("llm", None) => Ok(BrainKind::Llm),
            ("pipeline", agents) => {
                let agents = agents.unwrap_or("p+e+pl+m").to_string();
                AgentKind::parse_all(&agents)?;
                Ok(BrainKind::Pipeline(agents))
            }
            _ => Err(format!("unknown brain {s:?}: engine, llm or pipeline:<p+e+pl+m>")),
        }
    }
}

impl From<BrainKind> for String {
    fn from(b: BrainKind) -> String {
        match b {
            BrainKind::Engine => "engine".into(),
            BrainKind::Llm => "llm".into(),
            BrainKind::Pipeline(a) => format!("pipeline:{a}"),
        }
    }
}
