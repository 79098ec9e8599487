//! Whether one of the player's memories is what a moment at the board (a
//! greeting, a move, the persona's reply, a long think, the end) brings to
//! mind: a logistic model over how the two meet, as recall sees them: how
//! near the memory's meaning is to the moment's cues and how that stands
//! among the player's other memories, the cues its concepts answer, whether
//! it was made at this position, names this line or this very move, its
//! subject and type, and the kind of moment (a record matters at a
//! greeting, a habit at the board). Fitted on board moments played through
//! the product itself (`kibitz bench recall --trace`, `corpus/moments/`),
//! so the features it learns from are the ones it reads live.

use super::features::{Standing, standing};
use crate::learn::{self, Heads, Labelled, Linear};
use crate::memory::MemoryType;
use crate::triggers::TriggerKind;

/// Bumped whenever `features` changes meaning: traces of another version
/// are not read.
pub const VERSION: &str = "board-3";

/// The subjects a memory's tags may name (`memory::subject`), most
/// specific first.
pub const SUBJECTS: [&str; 8] = [
    "record",
    "past_game",
    "repertoire",
    "habit",
    "mood",
    "talk",
    "taste",
    "personal",
];

/// The subject a memory's tags say it is about, most specific first.
pub fn subject_of(tags: &[String]) -> Option<&'static str> {
    SUBJECTS.into_iter().find(|s| tags.iter().any(|t| t == s))
}

/// How many kinds of trigger there are: a kind's slot is its place in
/// `TriggerKind`'s declaration (held by a test).
const KINDS: usize = 6;

/// How many numbers `features` gives.
pub const COUNT: usize = 15 + MemoryType::ALL.len() + (SUBJECTS.len() + 1) + KINDS + KINDS * (SUBJECTS.len() + 1);

/// One of the player's memories found for the moment, as recall weighed
/// it (kept as such in a trace, so the features can change without
/// playing the moments again).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Candidate {
    /// Its best cosine with the moment's queries.
    pub similarity: f32,
    /// What its tags say it is about (`subject_of`).
    pub subject: Option<String>,
    pub memory_type: MemoryType,
    /// `Situation::tag_score`: the moment's cues its concepts answer, weighted.
    pub cue_score: f32,
    /// The strongest of those cues (0: none).
    pub best_cue: f32,
    /// Made at this very position, or in this opening.
    pub placed: bool,
    /// The game stands on the line of moves it gives.
    pub lined: bool,
    /// It names the move just played or about to be.
    pub named: bool,
    /// About the player's other colour only.
    pub other_colour: bool,
    /// The past game (of those found) whose words name the latest day.
    #[serde(default)]
    pub latest_game: bool,
}

/// The features of `found[i]` at a moment of kind `trigger`, among all of `found`.
pub fn features(trigger: TriggerKind, found: &[Candidate], i: usize) -> Vec<f32> {
    let me = &found[i];
    let s = me.similarity;
    let others = found.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, c)| c);
    let similarities: Vec<f32> = found.iter().map(|c| c.similarity).collect();
    let Standing { best_other, rank, mean } = standing(&similarities, i);
    let best_cue_other = others.map(|c| c.cue_score).fold(0.0, f32::max);
    let flag = |b: bool| f32::from(u8::from(b));
    let mut f = vec![
        1.0,
        s,
        s - best_other,
        s - mean,
        flag(rank == 0),
        flag(rank <= 2),
        me.cue_score,
        me.best_cue,
        me.cue_score - best_cue_other,
        flag(me.placed),
        flag(me.lined),
        flag(me.named),
        flag(me.other_colour),
        (found.len() as f32).ln(),
        flag(me.latest_game),
    ];
    f.extend(MemoryType::ALL.iter().map(|t| flag(*t == me.memory_type)));
    let subject = me.subject.as_deref();
    let subject_slot = subject
        .and_then(|s| SUBJECTS.iter().position(|x| *x == s))
        .unwrap_or(SUBJECTS.len());
    let one_hot = |n: usize, at: usize| (0..n).map(move |k| flag(k == at));
    f.extend(one_hot(SUBJECTS.len() + 1, subject_slot));
    let trigger_slot = trigger as usize;
    f.extend(one_hot(KINDS, trigger_slot));
    // What a subject is worth depends on the moment: the record at a
    // greeting, a habit at the board, a feeling at the end.
    let cells = KINDS * (SUBJECTS.len() + 1);
    f.extend(one_hot(cells, trigger_slot * (SUBJECTS.len() + 1) + subject_slot));
    debug_assert_eq!(f.len(), COUNT);
    f
}

/// One traced moment: its candidates and which of them were wanted.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct TracedMoment {
    /// The case of the moments file it was played from.
    pub case: String,
    pub trigger: TriggerKind,
    pub candidates: Vec<Candidate>,
    pub relevant: Vec<bool>,
    /// Each candidate's key in the moments file ("" for one not the
    /// player's), to read the traces beside the memories' words.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keys: Vec<String>,
    /// The moment's cues (tag, weight), strongest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cues: Vec<(String, f32)>,
    /// The text the memories were searched by.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub query: String,
}

/// One flag: the memory is what the moment brings to mind.
const HEADS: Heads = Heads { classes: 1, flags: 1 };

/// The fitted model.
#[derive(Debug, Clone, PartialEq)]
pub struct BoardRelevance(Linear);

impl BoardRelevance {
    /// How likely the candidate with these features is what the moment brings to mind.
    pub fn p_of(&self, features: &[f32]) -> f32 {
        self.0.read("", features).flags[0]
    }

    pub fn version(&self) -> String {
        self.0.version()
    }

    /// Fitted on traced moments.
    pub fn fit(moments: &[TracedMoment]) -> BoardRelevance {
        let (labelled, features) = labelled(moments);
        BoardRelevance(learn::train(&labelled, &features, HEADS))
    }

    /// The saved weights if they carry `key`, else fitted on the moments
    /// `read` gives (read only then: a server starts without parsing them).
    pub async fn load_or_fit(
        cache: &std::path::Path,
        key: [u8; 32],
        read: impl FnOnce() -> Result<Vec<TracedMoment>, learn::LearnError>,
    ) -> Result<(BoardRelevance, bool), learn::LearnError> {
        let examples = async move { Ok(labelled(&read()?)) };
        let (model, fitted) = learn::load_or_fit("board relevance", cache, key, HEADS, examples).await?;
        Ok((BoardRelevance(model), fitted))
    }
}

/// Each candidate of each moment as a labelled example and its features.
fn labelled(moments: &[TracedMoment]) -> (Vec<Labelled>, Vec<Vec<f32>>) {
    let mut labelled = Vec::new();
    let mut rows = Vec::new();
    for m in moments {
        for (i, relevant) in m.relevant.iter().enumerate().take(m.candidates.len()) {
            labelled.push(Labelled {
                text: String::new(),
                class: 0,
                flags: vec![*relevant],
            });
            rows.push(features(m.trigger, &m.candidates, i));
        }
    }
    (labelled, rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(similarity: f32, subject: &str, cue_score: f32) -> Candidate {
        Candidate {
            similarity,
            subject: Some(subject.to_string()),
            memory_type: MemoryType::Pattern,
            cue_score,
            best_cue: cue_score,
            placed: false,
            lined: false,
            named: false,
            other_colour: false,
            latest_game: false,
        }
    }

    #[test]
    fn every_kind_of_trigger_has_its_own_slot() {
        use strum::IntoEnumIterator;
        let slots: Vec<usize> = TriggerKind::iter().map(|k| k as usize).collect();
        assert_eq!(slots, (0..KINDS).collect::<Vec<_>>());
    }

    #[test]
    fn it_learns_that_the_memory_answering_the_moment_s_cue_is_meant_not_the_nearer_one() {
        let moments: Vec<TracedMoment> = (0..60)
            .map(|n| {
                let wobble = (n % 5) as f32 * 0.02;
                TracedMoment {
                    case: format!("c{n}"),
                    trigger: TriggerKind::OnUserMove,
                    candidates: vec![
                        candidate(0.30 + wobble, "habit", 1.0),
                        candidate(0.40 - wobble, "record", 0.0),
                    ],
                    relevant: vec![true, false],
                    keys: Vec::new(),
                    cues: Vec::new(),
                    query: String::new(),
                }
            })
            .collect();
        let model = BoardRelevance::fit(&moments);
        assert_eq!(model, BoardRelevance::fit(&moments), "same moments, same weights");
        let found = [candidate(0.25, "habit", 0.8), candidate(0.45, "record", 0.0)];
        let features_of = |i| features(TriggerKind::OnUserMove, &found, i);
        assert_eq!(features_of(0).len(), COUNT);
        let (cued, near) = (model.p_of(&features_of(0)), model.p_of(&features_of(1)));
        assert!(
            cued > 0.5 && near < 0.5,
            "the cue answered, not the nearer meaning: {cued} {near}"
        );
    }
}
