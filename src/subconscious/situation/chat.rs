//! The cues of what a chat line is about: a line about the player's life,
//! record, habits or tastes brings the nearest memories of that kind; the
//! concepts it speaks of are cued outright.

use super::{Cue, Situation};
use crate::memory::concepts;

/// A line about the player's life ("got in late from work again,
/// knackered") is about what they told of it before, whatever its words;
/// one about their results, their habits or their tastes, about what was
/// kept of those. The learned reading says which (`Situation::about`);
/// without it, whether the line tells of their life or tastes at all.
pub(super) fn told(s: &Situation) -> Vec<Cue> {
    // Below the tag gate: these rank a memory, the nearest by meaning of
    // each kind is let through (`fuse::nearest_told`), not every memory
    // of the kind. Each line is a reason of its own: a memory the greeting
    // gave comes again when a line speaks of it.
    let line = short(s.chat.as_deref().unwrap_or_default(), 60);
    if !s.about.is_empty() {
        let why = format!("you said \"{line}\", and told me before");
        // The parts of their life it touches too: the memories of the same
        // part ("forty lab reports" and the physics teacher) are its kind.
        let kinds = s.about.iter().filter(|t| SUBJECT_TAGS.contains(&t.tag));
        return kinds
            .chain(&s.topics)
            .filter(|t| t.p >= TOLD_LIKELY)
            .map(|t| Cue::new(t.tag, TOLD, &why))
            .collect();
    }
    let mut cues = Vec::new();
    if s.tells.life {
        let why = format!("you said \"{line}\", and told me before");
        cues.push(Cue::new("personal", TOLD, &why));
    }
    if s.tells.tastes {
        let why = format!("you said \"{line}\": your tastes in chess");
        cues.push(Cue::new("taste", TOLD, &why));
        cues.push(Cue::new("repertoire", 0.4, &why));
    }
    cues
}

/// A line cut to about `max` characters at a word's end, "…" marking the cut
/// (a reason that quotes "she's gett" reads as a slip of the persona's).
fn short(line: &str, max: usize) -> String {
    if line.chars().count() <= max {
        return line.to_string();
    }
    let cut: String = line.chars().take(max).collect();
    let at_word = match cut.rfind(char::is_whitespace) {
        Some(end) if end > 0 => &cut[..end],
        _ => cut.as_str(),
    };
    format!("{}…", at_word.trim_end_matches([',', ';', ':', '-', ' ']))
}

/// The weight of a kind of memory a line is about: below the tag gate.
const TOLD: f32 = 0.45;
/// A concept the line is this likely about is cued.
const ABOUT_LIKELY: f32 = 0.5;
/// A kind of memory the line is this likely about brings its nearest: a
/// weaker bar, as only the nearest by meaning comes of it.
const TOLD_LIKELY: f32 = 0.35;
/// The tags of memories' subjects (`memory::subject`): a line about one
/// brings the nearest memories of it; the rest are concepts, cued outright.
const SUBJECT_TAGS: [&str; 8] = [
    "record",
    "repertoire",
    "past_game",
    "habit",
    "mood",
    "life",
    "taste",
    "talk",
];

/// The concepts a line speaks of: those the learned reading is sure of,
/// and those its words name that the reading does not decide (a piece, a
/// tactic, an opening's name); by words alone without the reading.
pub(super) fn said(s: &Situation, text: &str) -> Vec<Cue> {
    let learned = !s.about.is_empty();
    let read = s
        .about
        .iter()
        .filter(|t| t.p >= ABOUT_LIKELY && !SUBJECT_TAGS.contains(&t.tag))
        .map(|t| t.tag.to_string());
    let named = concepts::tags_in(text)
        .into_iter()
        .filter(|tag| !(learned && crate::listen::decides(tag)));
    read.chain(named)
        .map(|tag| {
            let words = tag.trim_start_matches("opening:").replace(['_', '-'], " ");
            Cue::new(&tag, 0.8, &format!("you spoke of {words}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::short;

    #[test]
    fn a_long_line_is_cut_at_a_words_end() {
        let line = "the little one beat me at breakfast this morning, she's getting good";
        assert_eq!(
            short(line, 60),
            "the little one beat me at breakfast this morning, she's…"
        );
        assert_eq!(short("rough night", 60), "rough night");
        assert_eq!(short("abcdefghij", 4), "abcd…", "one long word is cut where it must be");
    }
}
