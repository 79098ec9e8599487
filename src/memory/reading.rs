//! What a memory is read as, beyond its words: its subject (`subject.rs`:
//! "Bea meets 1.d4 with the King's Indian" is a Black repertoire) and the
//! concepts it is about (`concept_reader.rs`: "throws a bishop at my king"
//! is a sacrifice), each by a learned model from the memory's embedding
//! and words.

use std::path::Path;

use super::concept_reader::{self, ConceptReader};
use super::memory_type::MemoryType;
use super::subject::{self, LIKELY, Subject, Subjects};
use crate::embed::Embedder;
use crate::learn::LearnError;
use crate::listen::topics::{self, Topics};

/// The learned readers of a memory's meaning: what it is about as a
/// whole (its subject), the concepts it touches, and the parts of the
/// player's life it tells of (`listen::topics`, the same reader a chat
/// line's topics are read by).
pub struct Readers {
    pub subjects: Subjects,
    pub concepts: ConceptReader,
    pub topics: Topics,
}

impl Readers {
    /// Both readers, loaded from beside the model in `models_dir` or trained
    /// there. Returns whether either trained.
    pub async fn load_or_train(embedder: &Embedder, models_dir: &Path) -> Result<(Readers, bool), LearnError> {
        let (subjects, fresh) = subject::load_or_train(embedder, &subject::cache_path(models_dir)).await?;
        let (concepts, also) = concept_reader::load_or_train(embedder, &concept_reader::cache_path(models_dir)).await?;
        let (topics, too) = topics::load_or_train(embedder, models_dir).await?;
        let readers = Readers {
            subjects,
            concepts,
            topics,
        };
        Ok((readers, fresh || also || too))
    }

    /// What the readers are: a memory tagged by other readers is tagged anew.
    pub fn version(&self) -> String {
        let (s, c, t) = (self.subjects.version(), self.concepts.version(), self.topics.version());
        // `coloured`'s rule is part of how a memory is read.
        format!("{s}{c}{t} colour-2")
    }
}

/// What reads a memory's meaning: the learned readers, once trained
/// (without them a memory keeps the tags of its words, type and board),
/// and the subject its kind already says, if it does.
pub struct Meaning<'a> {
    pub readers: Option<&'a Readers>,
    pub known: Option<Subject>,
}

impl Meaning<'_> {
    /// The subject the memory's kind says (a game's record is a past game,
    /// a streak a record: "Bea played White and beat me" is no White
    /// repertoire), else the one the reader is sure enough of.
    pub fn subject(&self, text: &str, vector: &[f32]) -> Option<Subject> {
        self.read_subject(text, vector, || opening_colour(text))
    }

    /// `subject`, asking `colour` for the opening's colour only if the
    /// reader says repertoire.
    fn read_subject(
        &self,
        text: &str,
        vector: &[f32],
        colour: impl FnOnce() -> Option<shakmaty::Color>,
    ) -> Option<Subject> {
        self.known.or_else(|| {
            let (subject, p) = self.readers?.subjects.read(text, vector);
            (p >= LIKELY).then(|| coloured(subject, colour))
        })
    }

    /// The tags a memory's meaning earns beyond its words: its subject's,
    /// the concepts it is about and the parts of life it tells of.
    pub fn tags(&self, text: &str, vector: &[f32]) -> Vec<String> {
        let mut tags: Vec<String> = Vec::new();
        // The opening book is searched once, for the subject and the tags.
        let once = std::cell::OnceCell::new();
        let colour = || *once.get_or_init(|| opening_colour(text));
        if let Some(subject) = self.read_subject(text, vector, colour) {
            tags.extend(subject.tags().iter().map(|t| t.to_string()));
        }
        let Some(readers) = self.readers else {
            return tags;
        };
        let read = readers.concepts.read(text, vector).into_iter();
        for tag in read.chain(readers.topics.tags(text, vector)) {
            if !tags.iter().any(|t| t == tag) {
                tags.push(tag.to_string());
            }
        }
        drop_contrary_colour(colour(), &mut tags);
        tags
    }

    /// Whether the memory is a record: it counts draws ("7 wins, 2 losses
    /// and 1 draw") and says nothing of how they offer or take one.
    pub fn is_record(&self, text: &str, vector: &[f32]) -> bool {
        self.subject(text, vector) == Some(Subject::Record)
    }
}

/// A repertoire whose colour its words leave to the opening it names
/// ("Rosa always plays the Italian": no colour, no moves) takes the colour
/// of the side that chooses that opening, whatever the reader guessed: the
/// Italian is White's choice, the Sicilian Black's. Words that say a colour
/// or give moves ("W = 1.d4 2.c4, QGD Exchange") are the reader's to read.
/// `colour` is `opening_colour` of the text, asked only for a repertoire.
fn coloured(subject: Subject, colour: impl FnOnce() -> Option<shakmaty::Color>) -> Subject {
    if !matches!(subject, Subject::RepertoireWhite | Subject::RepertoireBlack) {
        return subject;
    }
    match colour() {
        Some(shakmaty::Color::White) => Subject::RepertoireWhite,
        Some(shakmaty::Color::Black) => Subject::RepertoireBlack,
        None => subject,
    }
}

/// The colour an opening decides is not the concept reader's to
/// contradict ("Rosa always plays the Italian" was read as_black too).
fn drop_contrary_colour(colour: Option<shakmaty::Color>, tags: &mut Vec<String>) {
    let other = match colour {
        Some(shakmaty::Color::White) => "as_black",
        Some(shakmaty::Color::Black) => "as_white",
        None => return,
    };
    tags.retain(|t| t != other);
}

/// The side that chooses every opening the text names, when its words
/// say no colour and give no moves (see `coloured`).
fn opening_colour(text: &str) -> Option<shakmaty::Color> {
    let lower = text.to_lowercase();
    let says_colour = lower
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| matches!(w, "white" | "black" | "w" | "b"));
    let gives_moves = text
        .as_bytes()
        .windows(2)
        .any(|w| w[0].is_ascii_digit() && w[1] == b'.');
    if says_colour || gives_moves {
        return None;
    }
    let choosers: Vec<shakmaty::Color> = crate::chess::openings::book()
        .named(text)
        .iter()
        .map(|f| f.chooser)
        .collect();
    match choosers.split_first() {
        Some((first, rest)) if rest.iter().all(|c| c == first) => Some(*first),
        _ => None,
    }
}

/// The subject a memory's kind says for certain.
pub fn known_subject(kind: MemoryType) -> Option<Subject> {
    match kind {
        MemoryType::GameContext | MemoryType::SharedMoment => Some(Subject::PastGame),
        MemoryType::Streak => Some(Subject::Record),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coloured(subject: Subject, text: &str) -> Subject {
        super::coloured(subject, || opening_colour(text))
    }

    fn drop_contrary_colour(text: &str, tags: &mut Vec<String>) {
        super::drop_contrary_colour(opening_colour(text), tags);
    }

    #[test]
    fn a_repertoire_without_colour_or_moves_takes_its_openings_colour() {
        let black = Subject::RepertoireBlack;
        let white = Subject::RepertoireWhite;
        assert_eq!(coloured(black, "Rosa always plays the Italian."), white);
        assert_eq!(coloured(white, "Loves the Sicilian, the sharper the better."), black);
        assert_eq!(coloured(black, "Plays the London and the Catalan."), white);
        // Words or moves that say the colour are the reader's.
        assert_eq!(coloured(black, "As Black she still plays the Italian setups."), black);
        assert_eq!(coloured(black, "W = 1.d4 2.c4, QGD Exchange"), black);
        // Openings of both sides, or none, leave the reader's guess.
        assert_eq!(coloured(black, "Plays the Italian and the Sicilian."), black);
        assert_eq!(coloured(white, "Knows a lot of openings."), white);
        assert_eq!(coloured(Subject::Tastes, "Loves the Sicilian."), Subject::Tastes);
    }

    #[test]
    fn the_colour_an_opening_decides_is_the_only_colour_tagged() {
        let both = || vec!["opening".to_string(), "as_white".to_string(), "as_black".to_string()];
        let mut italian = both();
        drop_contrary_colour("Rosa always plays the Italian.", &mut italian);
        assert_eq!(italian, ["opening", "as_white"]);
        let mut sicilian = both();
        drop_contrary_colour("Loves the Sicilian.", &mut sicilian);
        assert_eq!(sicilian, ["opening", "as_black"]);
        let mut said = both();
        drop_contrary_colour("As White the Italian, as Black the Sicilian.", &mut said);
        assert_eq!(said, both(), "the words say both colours");
    }
}
