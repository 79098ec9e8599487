//! `kibitz bench recall --trace FILE`: each board moment's candidates as
//! recall weighed them while the set was played, labelled by the set (a
//! memory of the case's player whose key is among the relevant), one JSON
//! line a moment: what the board model is fitted on
//! (`subconscious::relevance::board`, `corpus/moments/traces_*.jsonl`).

use std::io::Write;
use std::path::Path;

use anyhow::Context;

use kibitz::subconscious::Traced;
use kibitz::subconscious::relevance::board::{Candidate, TracedMoment};
use kibitz::triggers::TriggerKind;

use super::set::{Ledger, Moment, Owner};

/// The case's scored trigger as traced (the last of its kind), labelled;
/// None for a chat line's (the chat model's) or a trigger not traced.
pub fn labelled(case: &Moment, traced: Vec<Traced>, ledger: &Ledger, tag: usize) -> Option<TracedMoment> {
    let kind: TriggerKind = case.trigger.parse().ok()?;
    let last = traced.into_iter().rev().find(|t| t.trigger == kind)?;
    let key = |id| match ledger.owner(id, tag) {
        Owner::Mine(key) => key,
        _ => String::new(),
    };
    let keys: Vec<String> = last.candidates.iter().map(|(id, _)| key(*id)).collect();
    let relevant = keys
        .iter()
        .map(|k| !k.is_empty() && case.relevant.contains(k))
        .collect();
    Some(TracedMoment {
        case: case.id.clone(),
        trigger: kind,
        candidates: last.candidates.into_iter().map(|(_, c)| rounded(c)).collect(),
        relevant,
        keys,
        cues: last.cues,
        query: last.query,
    })
}

/// Four decimals are all the fit can use, and keep the file small.
fn rounded(mut c: Candidate) -> Candidate {
    let four = |x: f32| (x * 1e4).round() / 1e4;
    c.similarity = four(c.similarity);
    c.cue_score = four(c.cue_score);
    c.best_cue = four(c.best_cue);
    c
}

pub fn write(path: &Path, moments: &[TracedMoment]) -> anyhow::Result<()> {
    let mut out =
        std::io::BufWriter::new(std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?);
    for m in moments {
        serde_json::to_writer(&mut out, m)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    eprintln!("{} traced moments written to {}", moments.len(), path.display());
    Ok(())
}
