//! Listening: what a chat line is for (its intents, main first) and what
//! it tells of the player (facts, in the third person), without a language
//! model. A model learned from a labelled corpus (`learned/`) reads the
//! line's embedding and its words: its main intent, every other intent it
//! shows, and whether it tells something lasting. Rules read only the
//! structure of what is told (`rules.rs`: clauses, who is the subject;
//! `facts.rs`: the third person), and decide alone until the learned
//! weights are ready or when the line could not be embedded.

mod about;
mod dates;
mod facts;
mod intent;
mod learned;
pub mod news;
mod person;
mod rules;
mod subject;
#[cfg(test)]
mod tests;
pub mod topics;
mod words;

use serde::Serialize;

pub use about::{Touch, decides};
pub use facts::kept_as_said;
pub use intent::Intent;
pub use learned::{Learned, Reading};
pub use person::{an_adverb, third_person};
pub use rules::says_sorry;
pub use subject::kin_of;

/// A persona card's `[chat]` key for a line heard as an apology that only
/// says the player is tired ("long day, tired now"): nobody said sorry.
pub const TIREDNESS: &str = "tiredness";

/// A persona card's `[chat]` key for a line that tells of the player's
/// state or doings now and nothing lasting ("my back is killing me
/// tonight", "just landed, jet lag is brutal"): met kindly, not with the
/// card's chat reply to idle talk ("Ha! Nice try. Play the move.").
pub const PASSING: &str = "passing";

/// Below this weight, and with no rule sure, a line is off topic (rules only).
const MIN_WEIGHT: f32 = 0.35;
/// How much a weak rule counts when the rules decide alone.
const RULE_LEAN: f32 = 0.5;
/// A learned probability this high counts (an intent shown, a fact told).
const LIKELY: f32 = 0.5;
/// A line the model thinks at least this likely tells something lasting is
/// kept: the write policy still refuses what it already holds, and a fact
/// kept wrongly can be forgotten by the player, one lost cannot be asked for.
const WORTH_KEEPING: f32 = 0.45;
/// The bar for a line the news reader hears as news of their life: such
/// news is told in passing ("my dog had to be put down yesterday") and is
/// what a friend remembers (0.3: on the development halves it kept four
/// more of 66 news lines and nothing wrongly; 0.2 kept one line wrongly).
const NEWS_WORTH_KEEPING: f32 = 0.3;

/// What was heard in one chat line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Heard {
    /// The line's main intent: what it is, as its writer framed it
    /// ("Hi! I learned chess from my dad." is a greeting that tells a fact).
    pub intent: Intent,
    /// 0..=1: the learned model's probability, or a rule's weight.
    pub confidence: f32,
    /// Every other intent the line shows, by rank.
    pub also: Vec<Intent>,
    /// What the player told of themselves, in the third person.
    pub facts: Vec<String>,
    /// "learned" or "rules": what decided the intent.
    pub by: &'static str,
    /// The kinds of memory the line is about, likeliest first (learned
    /// only: none without the weights or the embedding).
    pub about: Vec<Touch>,
    /// The parts of the player's life the line touches, likeliest first
    /// (`topics`; learned only, like `about`).
    pub topics: Vec<Touch>,
    /// The news of their life it tells, if any (`news`; learned only).
    pub news: Option<news::News>,
}

impl Heard {
    /// The news of their life the line tells, if it tells of their life
    /// at all (a fact, or telling as an act): "thanks!" is no news, whatever
    /// the news reader leans to.
    pub fn news_told(&self) -> Option<news::News> {
        self.news
            .filter(|_| !self.facts.is_empty() || self.shows(Intent::SelfDisclosure))
    }

    /// Every intent heard in the line: the main one, then the others by rank.
    pub fn intents(&self) -> Vec<Intent> {
        std::iter::once(self.intent).chain(self.also.iter().copied()).collect()
    }

    /// What a reply answers: a question or request the line makes
    /// ("Hi! Do you remember me?" is a greeting whose question is answered),
    /// the one ranked first (`Intent::rank`); else the line's main intent
    /// (a greeting that tells a fact is greeted, the fact said back apart).
    pub fn to_answer(&self) -> Intent {
        self.also
            .iter()
            .copied()
            .filter(|i| i.asks())
            .chain(std::iter::once(self.intent))
            .min_by_key(|i| i.rank())
            .unwrap_or(self.intent)
    }

    /// Whether the line shows this intent, as its main one or another.
    pub fn shows(&self, intent: Intent) -> bool {
        self.intent == intent || self.also.contains(&intent)
    }
}

/// The listener a server shares: rules only until the learned weights are
/// ready (loaded from beside the model, or trained in the background).
pub type SharedListener = std::sync::Arc<std::sync::OnceLock<Listener>>;

/// The listener: the learned weights when ready, and the rules.
#[derive(Debug, Clone, Default)]
pub struct Listener {
    learned: Option<Learned>,
    about: Option<about::About>,
    topics: Option<topics::Topics>,
    news: Option<news::NewsReader>,
}

/// The listener's learned parts, loaded from beside the model in
/// `models_dir`, or trained there when the model or a corpus changed.
/// Returns whether any trained.
pub async fn load_or_train(
    embedder: &crate::embed::Embedder,
    models_dir: &std::path::Path,
) -> Result<(Listener, bool), crate::learn::LearnError> {
    let (learned, fresh) = learned::load_or_train(embedder, &learned::cache_path(models_dir)).await?;
    let (about, also) = about::load_or_train(embedder, &about::cache_path(models_dir)).await?;
    let (topics, too) = topics::load_or_train(embedder, models_dir).await?;
    let (news, again) = news::load_or_train(embedder, models_dir).await?;
    let listener = Listener {
        learned: Some(learned),
        about: Some(about),
        topics: Some(topics),
        news: Some(news),
    };
    Ok((listener, fresh || also || too || again))
}

impl Listener {
    /// What reads a line once loaded (the intents' weights, the kinds'
    /// and the topics'): what a model fitted on its readings was fitted on.
    pub fn version(&self) -> Option<String> {
        let learned = self.learned.as_ref()?.version();
        let about = self.about.as_ref()?.version();
        let topics = self.topics.as_ref()?.version();
        let news = self.news.as_ref()?.version();
        Some(format!("{learned}{about}{topics}{news}"))
    }

    /// The learned model's reading of a line, once its weights are loaded.
    pub fn reading(&self, line: &str, vector: &[f32]) -> Option<Reading> {
        Some(self.learned.as_ref()?.read(line, vector))
    }

    /// Reads `line` as told today (UTC); see `hear_on`.
    pub fn hear(&self, line: &str, vector: Option<&[f32]>, player: &str) -> Heard {
        self.hear_on(line, vector, player, chrono::Utc::now().date_naive())
    }

    /// Reads `line`; `vector` is its embedding when the model could afford
    /// it (without, the rules alone decide). `player` names the facts, and
    /// their dates are made absolute from `today` ("an exam tomorrow" is
    /// kept as "an exam on 27 November 2026").
    pub fn hear_on(&self, line: &str, vector: Option<&[f32]>, player: &str, today: chrono::NaiveDate) -> Heard {
        let read: Vec<(rules::Clause, Vec<(Intent, f32)>)> = rules::clauses(line)
            .into_iter()
            .map(|c| {
                let r = rules::read(&c);
                (c, r)
            })
            .collect();
        let news = match (&self.news, vector) {
            (Some(news), Some(vector)) => news.read(line, vector),
            _ => None,
        };
        let mut heard = match (&self.learned, vector) {
            (Some(model), Some(vector)) => {
                // News of their life is worth keeping on less: a dog put
                // down, a redundancy, a broken wrist are told in passing.
                // Not a leave-taking's reason ("signing off, work in the
                // morning"): what a farewell tells must stand on its own.
                let reading = model.read(line, vector);
                let worth = match news.is_some() && reading.main.0 != Intent::Farewell {
                    true => NEWS_WORTH_KEEPING,
                    false => WORTH_KEEPING,
                };
                hear_learned(&reading, read, player, worth)
            }
            _ => hear_by_rules(read, player),
        };
        heard.news = news;
        // A line kept only in the player's words and too short to say who
        // did what ('Lena said: "first time here."', 'Sam said: "back."')
        // is kept only as news ("engaged!!").
        if heard.news.is_none() {
            heard.facts.retain(|f| !facts::a_scrap(f, player));
        }
        for fact in &mut heard.facts {
            let dated = dates::absolute(fact, today);
            // News of the past told with no day ("I passed my nursing
            // exam!") is dated by the month it was told in.
            *fact = match heard.news {
                Some(news::News::Good | news::News::Bad) if dated == *fact => dates::of_this_month(fact, today),
                _ => dated,
            };
        }
        if let (Some(about), Some(vector)) = (&self.about, vector) {
            heard.about = about.read(line, vector);
        }
        if let (Some(topics), Some(vector)) = (&self.topics, vector) {
            heard.topics = topics.read(line, vector);
        }
        heard
    }
}

/// The learned model decides the intents and whether the line tells
/// something lasting; the clauses where the player is the subject say what.
fn hear_learned(reading: &Reading, read: Vec<(rules::Clause, Vec<(Intent, f32)>)>, player: &str, worth: f32) -> Heard {
    let (intent, confidence) = framed(reading, &read).unwrap_or(reading.main);
    let mut also: Vec<Intent> = Intent::ALL
        .into_iter()
        .zip(reading.present)
        .filter(|(i, p)| *i != intent && *p >= LIKELY)
        .map(|(i, _)| i)
        .collect();
    also.sort_by_key(|i| i.rank());
    // A clause that is only a pleasantry ("sorry,", "morning!") or the
    // player's name tells nothing; one where the player is the subject may
    // ("I'm off to teach my piano students"). Only a clause that asks by
    // itself is no telling ("I'm left handed, does that matter?").
    let pleasantry = |c: &rules::Clause, r: &[(Intent, f32)]| {
        !c.player_is_subject()
            && r.iter().any(|(i, w)| {
                *w >= rules::DECIDES
                    && matches!(
                        i,
                        Intent::Greeting | Intent::Farewell | Intent::Thanks | Intent::Apology | Intent::Compliment
                    )
            })
    };
    let facts = match reading.remember >= worth {
        true => {
            let marked: Vec<facts::Marked> = read
                .into_iter()
                .map(|(c, r)| {
                    let mut c = subject::restore_subject(c);
                    c.question = c.asks;
                    facts::Marked {
                        tells: !pleasantry(&c, &r) && !names_only(&c, player),
                        subject: c.player_is_subject(),
                        clause: c,
                    }
                })
                .collect();
            facts::told(&marked, player)
        }
        false => Vec::new(),
    };
    Heard {
        intent,
        confidence,
        also,
        facts,
        by: "learned",
        about: Vec::new(),
        topics: Vec::new(),
        news: None,
    }
}

/// A line opened by a greeting, a farewell or thanks that the model hears in it is
/// framed by that act, whatever else it tells ("hola! my spanish isn't
/// great" greets; "thanks for asking, mum is better" thanks).
fn framed(reading: &Reading, read: &[(rules::Clause, Vec<(Intent, f32)>)]) -> Option<(Intent, f32)> {
    let (_, first) = read.first()?;
    [Intent::Greeting, Intent::Farewell, Intent::Thanks]
        .into_iter()
        .find_map(|frame| {
            let opens = first.iter().any(|(i, w)| *i == frame && *w >= rules::DECIDES);
            let p = reading.present[frame as usize];
            (opens && p >= LIKELY).then_some((frame, p))
        })
}

/// Without the learned weights: each clause's rules, the surest first.
fn hear_by_rules(read: Vec<(rules::Clause, Vec<(Intent, f32)>)>, player: &str) -> Heard {
    let mut weights: Vec<(Intent, f32)> = Vec::new();
    for (intent, w) in read.iter().flat_map(|(_, r)| r.iter().copied()) {
        match weights.iter_mut().find(|(i, _)| *i == intent) {
            Some((_, best)) => *best = best.max(w),
            None => weights.push((intent, w)),
        }
    }
    let (intent, confidence) = decide_by_rules(&weights);
    let mut also: Vec<Intent> = weights
        .iter()
        .filter(|(i, w)| *i != intent && *w >= 0.5)
        .map(|(i, _)| *i)
        .collect();
    also.sort_by_key(|i| i.rank());
    // A clause tells a fact when it reads as telling and as nothing
    // else for sure: "sorry I had to step away" apologises.
    let telling = |r: &[(Intent, f32)]| {
        let tells = |i: &Intent| matches!(i, Intent::SelfDisclosure | Intent::Preference);
        r.iter().any(|(i, w)| tells(i) && *w >= 0.5) && !r.iter().any(|(i, w)| !tells(i) && *w >= rules::DECIDES)
    };
    let marked: Vec<facts::Marked> = read
        .into_iter()
        .map(|(c, r)| facts::Marked {
            tells: telling(&r) && !names_only(&c, player),
            subject: c.player_is_subject(),
            clause: c,
        })
        .collect();
    let tells = |i: &Intent| matches!(i, Intent::SelfDisclosure | Intent::Preference);
    let facts = match tells(&intent) || also.iter().any(tells) {
        true => facts::facts(&marked, player),
        false => Vec::new(),
    };
    Heard {
        intent,
        confidence,
        also,
        facts,
        by: "rules",
        about: Vec::new(),
        topics: Vec::new(),
        news: None,
    }
}

/// A rule sure enough decides (the highest-ranked of those); else the
/// strongest lean, if strong enough; else off topic.
fn decide_by_rules(weights: &[(Intent, f32)]) -> (Intent, f32) {
    let decided = weights
        .iter()
        .filter(|(_, w)| *w >= rules::DECIDES)
        .min_by_key(|(i, _)| i.rank());
    if let Some((intent, w)) = decided {
        return (*intent, *w);
    }
    let best = weights
        .iter()
        .map(|(i, w)| (*i, RULE_LEAN * w))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    match best {
        Some((intent, score)) if score >= MIN_WEIGHT => (intent, score.min(1.0)),
        _ => (Intent::OffTopic, 1.0 - best.map_or(0.0, |(_, s)| s)),
    }
}

/// Whether `held`, a memory, says the fact `told` already, in its own
/// words: most of the fact's words are in it ("Ann teaches piano." and
/// "Ann told me: \"I teach piano in Lisbon\"").
pub fn same_fact(told: &str, held: &str) -> bool {
    let words = |t: &str| -> Vec<String> {
        t.split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() > 2)
            .map(str::to_lowercase)
            .collect()
    };
    let (told, held) = (words(told), words(held));
    let shared = told.iter().filter(|w| held.contains(w)).count();
    !told.is_empty() && shared * 3 >= told.len() * 2
}

/// "I'm Ann": the player giving their name is no fact about them.
fn names_only(c: &rules::Clause, player: &str) -> bool {
    let rest = ["i'm", "im", "i am", "my name is", "call me"]
        .iter()
        .find_map(|s| c.padded.strip_prefix(&format!(" {s} ")));
    rest.is_some_and(|r| r.split_whitespace().count() <= 2 && r.contains(&player.to_lowercase()))
        || rest.is_some_and(|r| r.split_whitespace().count() == 1 && c.has("name"))
}
