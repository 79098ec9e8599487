//! The labelled moments `kibitz bench recall` plays (`bench/recall_moments.json`)
//! and how one trigger's recall is scored against them: precision@3,
//! recall@3, a hit in the top 3, and the reciprocal rank of the first
//! relevant memory.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use kibitz::ids::MemoryId;

/// How many recalled memories count: the main agent is handed three.
pub const K: usize = 3;

#[derive(Debug, Deserialize)]
pub struct MomentSet {
    pub profiles: BTreeMap<String, Profile>,
    pub cases: Vec<Moment>,
}

/// A player, the persona they play, their earlier matches with it (oldest
/// first) and what the persona remembers of them.
#[derive(Debug, Deserialize)]
pub struct Profile {
    pub name: String,
    pub persona: String,
    #[serde(default)]
    pub history: Vec<PastMatch>,
    pub memories: Vec<LabelledMemory>,
}

/// An earlier match: a bare result ("won": a set mate in one, "drew": bare
/// kings, "lost": resigned at the start), or a game from the start in which
/// the player, with `color`, played `opened` (their moves, SAN, whatever the
/// persona answers), then resigned.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(untagged)]
pub enum PastMatch {
    Result(PastResult),
    Opened { opened: String, color: String },
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PastResult {
    Won,
    Lost,
    Drew,
}

#[derive(Debug, Deserialize)]
pub struct LabelledMemory {
    pub key: String,
    #[serde(rename = "type")]
    pub memory_type: String,
    pub content: String,
    /// The moves from the start position of the game it was made in, when
    /// it was made at a board (its position and opening are kept with it).
    pub moves: Option<String>,
}

/// One moment: a match with this profile's player, played through the API
/// step by step; the last `trigger` of that match is scored.
#[derive(Debug, Deserialize)]
pub struct Moment {
    pub id: String,
    pub profile: String,
    pub color: String,
    pub fen: Option<String>,
    pub steps: Vec<Step>,
    pub trigger: String,
    pub relevant: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Step {
    Move(String),
    Chat(String),
    Draw(String),
    /// Wait for the persona's first idle nudge.
    Idle,
    Resign,
}

impl MomentSet {
    pub fn load(path: &Path) -> anyhow::Result<MomentSet> {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let set: MomentSet = serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
        set.check()?;
        Ok(set)
    }

    /// Every case names a known profile and that profile's memories.
    fn check(&self) -> anyhow::Result<()> {
        for case in &self.cases {
            let profile = self
                .profiles
                .get(&case.profile)
                .with_context(|| format!("case {}: unknown profile {}", case.id, case.profile))?;
            for key in &case.relevant {
                anyhow::ensure!(
                    profile.memories.iter().any(|m| &m.key == key),
                    "case {}: {key} is not a memory of {}",
                    case.id,
                    case.profile
                );
            }
        }
        Ok(())
    }
}

/// Who a recalled memory belongs to, as far as the bench knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Owner {
    /// This case's player: the memory's key in the set.
    Mine(String),
    /// Another player of the bench.
    OtherPlayer,
    Lore,
    /// Made by the product during the bench (this case's own match).
    Unlabelled,
}

/// One case's recall, scored.
#[derive(Debug, Clone, Serialize)]
pub struct CaseScore {
    pub id: String,
    pub trigger: String,
    /// What the trigger handed over, best first: keys, "lore", "other player" or "unlabelled".
    pub recalled: Vec<String>,
    pub relevant: Vec<String>,
    /// None when nothing was recalled (precision is undefined).
    pub precision: Option<f64>,
    /// None when the case has no relevant memory.
    pub recall: Option<f64>,
    pub hit: Option<bool>,
    pub reciprocal_rank: Option<f64>,
    pub lore: usize,
    pub cross_player: usize,
}

pub fn score(case: &Moment, recalled: &[Owner]) -> CaseScore {
    let top: Vec<&Owner> = recalled.iter().take(K).collect();
    let relevant_at = |o: &Owner| matches!(o, Owner::Mine(k) if case.relevant.contains(k));
    let found = top.iter().filter(|o| relevant_at(o)).count();
    let has_relevant = !case.relevant.is_empty();
    let first = top.iter().position(|o| relevant_at(o));
    CaseScore {
        id: case.id.clone(),
        trigger: case.trigger.clone(),
        recalled: top.iter().map(|o| label(o)).collect(),
        relevant: case.relevant.clone(),
        precision: (!top.is_empty()).then(|| found as f64 / top.len() as f64),
        recall: has_relevant.then(|| found as f64 / case.relevant.len().min(K) as f64),
        hit: has_relevant.then_some(found > 0),
        reciprocal_rank: has_relevant.then(|| first.map_or(0.0, |i| 1.0 / (i + 1) as f64)),
        lore: top.iter().filter(|o| ***o == Owner::Lore).count(),
        cross_player: top.iter().filter(|o| ***o == Owner::OtherPlayer).count(),
    }
}

fn label(o: &Owner) -> String {
    match o {
        Owner::Mine(k) => k.clone(),
        Owner::OtherPlayer => "other player".into(),
        Owner::Lore => "lore".into(),
        Owner::Unlabelled => "unlabelled".into(),
    }
}

/// Means over a group of cases.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub cases: usize,
    pub precision_at_3: f64,
    pub recall_at_3: f64,
    pub hit_at_3: f64,
    pub mrr: f64,
    /// Share of the handed-over slots that went to the persona's lore.
    pub lore_share: f64,
    /// The same, in cases where the player had a relevant memory.
    pub lore_share_when_relevant: f64,
    pub cross_player_hits: usize,
}

pub fn summarise(scores: &[&CaseScore]) -> Summary {
    let mean = |values: Vec<f64>| values.iter().sum::<f64>() / values.len().max(1) as f64;
    let slots: usize = scores.iter().map(|s| s.recalled.len()).sum();
    let relevant: Vec<&&CaseScore> = scores.iter().filter(|s| !s.relevant.is_empty()).collect();
    let relevant_slots: usize = relevant.iter().map(|s| s.recalled.len()).sum();
    Summary {
        cases: scores.len(),
        // A case that recalled nothing has no precision; one that should
        // have recalled something counts 0, not nothing.
        precision_at_3: mean(
            scores
                .iter()
                .filter_map(|s| s.precision.or((!s.relevant.is_empty()).then_some(0.0)))
                .collect(),
        ),
        recall_at_3: mean(scores.iter().filter_map(|s| s.recall).collect()),
        hit_at_3: mean(scores.iter().filter_map(|s| s.hit.map(f64::from)).collect()),
        mrr: mean(scores.iter().filter_map(|s| s.reciprocal_rank).collect()),
        lore_share: scores.iter().map(|s| s.lore).sum::<usize>() as f64 / slots.max(1) as f64,
        lore_share_when_relevant: relevant.iter().map(|s| s.lore).sum::<usize>() as f64 / relevant_slots.max(1) as f64,
        cross_player_hits: scores.iter().map(|s| s.cross_player).sum(),
    }
}

/// Overall and per trigger kind.
pub fn report(scores: &[CaseScore]) -> (Summary, BTreeMap<String, Summary>) {
    let all: Vec<&CaseScore> = scores.iter().collect();
    let mut kinds: HashMap<&str, Vec<&CaseScore>> = HashMap::new();
    for s in scores {
        kinds.entry(s.trigger.as_str()).or_default().push(s);
    }
    let per_kind = kinds.into_iter().map(|(k, v)| (k.to_string(), summarise(&v))).collect();
    (summarise(&all), per_kind)
}

/// Which memory ids the bench stored, and for whom.
#[derive(Default)]
pub struct Ledger {
    /// id -> (the case's player tag, the memory's key).
    pub stored: HashMap<MemoryId, (usize, String)>,
    pub lore: std::collections::HashSet<MemoryId>,
}

impl Ledger {
    pub fn owner(&self, id: MemoryId, player: usize) -> Owner {
        match self.stored.get(&id) {
            Some((p, key)) if *p == player => Owner::Mine(key.clone()),
            Some(_) => Owner::OtherPlayer,
            None if self.lore.contains(&id) => Owner::Lore,
            None => Owner::Unlabelled,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(relevant: &[&str]) -> Moment {
        Moment {
            id: "c".into(),
            profile: "p".into(),
            color: "white".into(),
            fen: None,
            steps: vec![],
            trigger: "on_user_move".into(),
            relevant: relevant.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn scores_count_the_top_three_only() {
        let mine = |k: &str| Owner::Mine(k.into());
        let got = [Owner::Lore, mine("a"), mine("x"), mine("b")];
        let s = score(&case(&["a", "b"]), &got);
        assert_eq!(s.precision, Some(1.0 / 3.0));
        assert_eq!(s.recall, Some(0.5));
        assert_eq!(s.reciprocal_rank, Some(0.5));
        assert_eq!((s.lore, s.hit), (1, Some(true)));
        let none = score(&case(&["a"]), &[]);
        assert_eq!((none.precision, none.recall, none.hit), (None, Some(0.0), Some(false)));
        let negative = score(&case(&[]), &[Owner::OtherPlayer]);
        assert_eq!(
            (negative.precision, negative.recall, negative.cross_player),
            (Some(0.0), None, 1)
        );
        let summary = summarise(&[&s, &none, &negative]);
        assert!((summary.precision_at_3 - (1.0 / 3.0) / 3.0).abs() < 1e-9, "{summary:?}");
        assert_eq!(summary.cross_player_hits, 1);
    }
}
