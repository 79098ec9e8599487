//! How a chat line and one of the player's memories meet, as numbers: how
//! near their meanings are, and how that nearness stands among the
//! player's other memories (the nearest of ten at 0.3 says more than one of
//! ten all at 0.3); the words they share; whether the line is about the
//! kind of thing the memory is (its subject, read by the listener), and of
//! the part of the player's life it tells of (its topics); and the
//! memory's type. The same function reads a live line's candidates and
//! the corpus the model is fitted on, so the two never drift apart.

use crate::listen::{Intent, Touch};
use crate::memory::MemoryType;

/// How many numbers `features` gives.
pub const COUNT: usize = 20 + MemoryType::ALL.len() + Intent::ALL.len();

/// One of the player's memories found for the line.
#[derive(Debug, Clone, Copy)]
pub struct Candidate<'a> {
    /// Cosine of the line's embedding and the memory's.
    pub similarity: f32,
    /// `lexical::overlap` of the line's words with the memory's.
    pub overlap: f32,
    pub tags: &'a [String],
    pub memory_type: MemoryType,
}

/// The line: what the listener read it to be about and for, and its length.
#[derive(Debug, Clone, Copy)]
pub struct Line<'a> {
    pub about: &'a [Touch],
    /// The parts of the player's life it touches (`listen::topics`).
    pub topics: &'a [Touch],
    /// Every intent the listener heard in it.
    pub intents: &'a [Intent],
    pub words: usize,
}

/// The features of `found[i]` for `line`, among all of `found`.
pub fn features(line: &Line<'_>, found: &[Candidate<'_>], i: usize) -> Vec<f32> {
    let me = &found[i];
    let s = me.similarity;
    let others = found.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, c)| c);
    let Standing { best_other, rank, mean } = standing(&found.iter().map(|c| c.similarity).collect::<Vec<_>>(), i);
    let about_me = line
        .about
        .iter()
        .filter(|t| me.tags.iter().any(|tag| tag == t.tag))
        .map(|t| t.p)
        .fold(0.0, f32::max);
    let about_any = line.about.iter().map(|t| t.p).fold(0.0, f32::max);
    // Whether another memory answers the line's kind better than this one.
    let kind_rank = others
        .filter(|c| c.similarity > s && line.about.iter().any(|t| c.tags.iter().any(|tag| tag == t.tag)))
        .count();
    // How many of the found memories share the kind the line is most
    // about with this one: the only repertoire is what "c6, like always" is about.
    let kind = line
        .about
        .iter()
        .filter(|t| me.tags.iter().any(|tag| tag == t.tag))
        .max_by(|a, b| a.p.total_cmp(&b.p));
    let of_kind = kind.map_or(0, |k| {
        found.iter().filter(|c| c.tags.iter().any(|t| t == k.tag)).count()
    });
    let share = about_me / of_kind.max(1) as f32;
    // The part of life the line touches that this memory tells of, and
    // whether it is the nearest memory of that part.
    let shared = |c: &Candidate<'_>, t: &Touch| c.tags.iter().any(|tag| tag == t.tag);
    let topic = line
        .topics
        .iter()
        .filter(|t| shared(me, t))
        .max_by(|a, b| a.p.total_cmp(&b.p));
    let topic_me = topic.map_or(0.0, |t| t.p);
    let topic_nearest = topic.is_some_and(|t| !found.iter().any(|c| c.similarity > s && shared(c, t)));
    let flag = |b: bool| f32::from(u8::from(b));
    let mut f = vec![
        s,
        s - best_other,
        s - mean,
        flag(rank == 0),
        flag(rank == 1),
        flag(rank == 2),
        (1.0 + me.overlap).ln(),
        flag(me.overlap > 0.0),
        about_me,
        about_any,
        s * about_me,
        flag(about_me > 0.0 && kind_rank == 0),
        flag(line.words <= 3),
        1.0,
        share,
        flag(of_kind == 1) * about_me,
        topic_me,
        line.topics.iter().map(|t| t.p).fold(0.0, f32::max),
        s * topic_me,
        flag(topic_nearest) * topic_me,
    ];
    f.extend(MemoryType::ALL.iter().map(|t| flag(*t == me.memory_type)));
    f.extend(Intent::ALL.iter().map(|i| flag(line.intents.contains(i))));
    debug_assert_eq!(f.len(), COUNT);
    f
}

/// How one similarity stands among its fellows': the best of the others
/// (0 if none), how many others are nearer, and the mean of all.
pub struct Standing {
    pub best_other: f32,
    pub rank: usize,
    pub mean: f32,
}

pub fn standing(similarities: &[f32], i: usize) -> Standing {
    let s = similarities[i];
    let others = similarities
        .iter()
        .enumerate()
        .filter(|(j, _)| *j != i)
        .map(|(_, x)| *x);
    let best_other = others.clone().fold(f32::NEG_INFINITY, f32::max);
    Standing {
        best_other: if best_other.is_finite() { best_other } else { 0.0 },
        rank: others.filter(|x| *x > s).count(),
        mean: similarities.iter().sum::<f32>() / similarities.len().max(1) as f32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(similarity: f32, tags: &[String]) -> Candidate<'_> {
        Candidate {
            similarity,
            overlap: 0.0,
            tags,
            memory_type: MemoryType::PlayerObservation,
        }
    }

    #[test]
    fn the_nearest_memory_of_the_kind_the_line_is_about_reads_so() {
        let (life, game) = (vec!["life".to_string()], vec!["past_game".to_string()]);
        let about = [Touch { tag: "life", p: 0.8 }];
        let line = Line {
            about: &about,
            topics: &[],
            intents: &[Intent::SelfDisclosure],
            words: 9,
        };
        let found = [candidate(0.42, &life), candidate(0.30, &game), candidate(0.25, &life)];
        let first = features(&line, &found, 0);
        assert_eq!(first.len(), COUNT);
        assert!((first[1] - 0.12).abs() < 1e-6, "its lead over the next: {first:?}");
        assert_eq!((first[3], first[8], first[11]), (1.0, 0.8, 1.0));
        let third = features(&line, &found, 2);
        assert_eq!((third[5], third[8], third[11]), (1.0, 0.8, 0.0), "{third:?}");
        let game = features(&line, &found, 1);
        assert_eq!(game[8], 0.0, "the line is not about games");
    }
}
