//! One way to turn an enum into its name and back: strum's derives beside
//! serde's renaming, so the name an enum is stored under in SQL, logged
//! under and parsed from is the name the API shows. Each enum's every
//! variant is checked both ways.

use serde::Serialize;
use strum::IntoEnumIterator;

/// Each variant's name is its serde name, and (where the enum parses) reads
/// back as itself.
fn names_agree<E>(as_str: fn(E) -> &'static str, parse: Option<fn(&str) -> Option<E>>)
where
    E: IntoEnumIterator + Serialize + Copy + PartialEq + std::fmt::Debug,
{
    let mut seen = Vec::new();
    for v in E::iter() {
        let name = as_str(v);
        assert_eq!(serde_json::to_value(v).unwrap(), serde_json::json!(name), "{v:?}");
        assert!(!seen.contains(&name), "{name} twice");
        seen.push(name);
        if let Some(parse) = parse {
            assert_eq!(parse(name), Some(v), "{name}");
        }
    }
    if let Some(parse) = parse {
        assert_eq!(parse("no such name"), None);
    }
}

#[test]
fn every_enum_is_named_the_same_in_sql_logs_and_the_api() {
    use kibitz::events::Side;
    use kibitz::familiarity::Stage;
    use kibitz::listen::Intent;
    use kibitz::memory::{CreatedBy, MemoryType, SaveOutcome};
    use kibitz::store::MatchStatus;
    use kibitz::triggers::{TalkMode, TriggerKind};

    names_agree::<Intent>(Intent::as_str, Some(Intent::parse));
    names_agree::<Side>(Side::as_str, Some(Side::parse));
    names_agree::<TalkMode>(TalkMode::as_str, Some(TalkMode::parse));
    names_agree::<CreatedBy>(CreatedBy::as_str, Some(CreatedBy::parse));
    names_agree::<MemoryType>(MemoryType::as_str, Some(|s| s.parse().ok()));
    names_agree::<MatchStatus>(MatchStatus::as_str, Some(|s| s.parse().ok()));
    names_agree::<TriggerKind>(TriggerKind::as_str, Some(|s| s.parse().ok()));
    names_agree::<Stage>(Stage::as_str, Some(|s| s.parse().ok()));
    names_agree::<SaveOutcome>(SaveOutcome::as_str, Some(|s| s.parse().ok()));
}

#[test]
fn registration_reads_its_lowercase_names_and_says_which_there_are() {
    use kibitz::config::Registration;
    for r in Registration::iter() {
        let name: &'static str = r.into();
        assert_eq!(serde_json::to_value(r).unwrap(), serde_json::json!(name));
        assert_eq!(name.parse::<Registration>(), Ok(r));
    }
    let err = "closed".parse::<Registration>().unwrap_err();
    assert!(err.contains("open, invite or admin"), "{err}");
}
