//! Intents and facts on lines a club player types (rules only: the vote by
//! meaning needs the model and is measured by `kibitz bench chat`).

use super::*;

fn heard(line: &str) -> Heard {
    Listener::default().hear(line, None, "Newcomer")
}

#[test]
fn plain_words_decide_the_intent() {
    let cases = [
        ("Hi! I'm new here, I learned chess from my dad.", Intent::SelfDisclosure),
        (
            "Wow, that was a sharp move. Are you always this aggressive?",
            Intent::AsksPersona,
        ),
        (
            "I love the Italian game, it's my favourite opening.",
            Intent::Preference,
        ),
        ("Do you remember me?", Intent::AsksMemory),
        ("Hello! Do you remember me?", Intent::AsksMemory),
        ("What did I play last time?", Intent::AsksMemory),
        ("why Nf6?", Intent::AsksPosition),
        ("was that a blunder?", Intent::AsksPosition),
        ("am I winning?", Intent::AsksPosition),
        ("draw?", Intent::DrawRequest),
        ("oops misclick, can I take that back", Intent::TakebackRequest),
        ("thanks!", Intent::Thanks),
        ("gg wp", Intent::Compliment),
        ("is that all you've got?", Intent::TrashTalk),
        ("sorry, long day at work", Intent::Apology),
        ("bye, see you next week", Intent::Farewell),
        ("hey there", Intent::Greeting),
    ];
    let wrong: Vec<String> = cases
        .iter()
        .map(|(line, want)| (line, want, heard(line).intent))
        .filter(|(_, want, got)| *want != got)
        .map(|(line, want, got)| format!("{line}: {got}, not {want}"))
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn facts_are_kept_in_the_third_person_and_pleasantries_are_not() {
    assert_eq!(
        heard("Hi! I'm new here, I learned chess from my dad.").facts,
        ["Newcomer learned chess from their dad."]
    );
    assert_eq!(
        heard("I love the Italian game, it's my favourite opening.").facts,
        ["Newcomer loves the Italian game, it's their favourite opening."]
    );
    assert_eq!(
        heard("I work as a nurse on nights").facts,
        ["Newcomer works as a nurse on nights."]
    );
    assert_eq!(heard("My wife teaches maths").facts, ["Newcomer's wife teaches maths."]);
    assert_eq!(heard("I'm a retired postman").facts, ["Newcomer is a retired postman."]);
    assert_eq!(
        heard("I always play the London").facts,
        ["Newcomer always plays the London."]
    );
    assert_eq!(
        Listener::default()
            .hear("hi, I am Noor and I teach piano", None, "Noor")
            .facts,
        ["Noor teaches piano."]
    );
    assert_eq!(
        Listener::default()
            .hear("My name is Noor Haddad and I live in Oslo", None, "Noor")
            .facts,
        ["Noor lives in Oslo."]
    );
    assert_eq!(
        heard("I'm retired and I play every Sunday").facts,
        ["Newcomer is retired and Newcomer plays every Sunday."]
    );
    assert_eq!(heard("oh, I teach piano").facts, ["Newcomer teaches piano."]);
    assert_eq!(heard("honestly I teach piano").facts, ["Newcomer teaches piano."]);
    assert_eq!(heard("btw, I teach piano").facts, ["Newcomer teaches piano."]);
    assert_eq!(heard("I teach piano haha").facts, ["Newcomer teaches piano."]);
    assert_eq!(heard("I teach piano lol!").facts, ["Newcomer teaches piano."]);
    assert_eq!(heard("I teach piano 😅lol").facts, ["Newcomer teaches piano 😅."]);
    // An address or a filler before the words ("bruh", "mate"), and an
    // adverb in -ly before the verb, are no part of the fact.
    assert_eq!(
        heard("bruh I literally work at a chess cafe in toronto").facts,
        ["Newcomer literally works at a chess cafe in toronto."]
    );
    assert_eq!(
        heard("mate, I finally teach piano").facts,
        ["Newcomer finally teaches piano."]
    );
    assert_eq!(
        heard("I apply paint for a living").facts,
        ["Newcomer applies paint for a living."]
    );
    for nothing in [
        "haha I would never have found that one myself",
        "Do you remember me?",
        "Hello! Do you remember me?",
        "I'm so tired tonight",
        "I think I'm lost here",
        "I'm new here",
        "thanks, I'm fine",
        "I'll take the pawn",
        "I'm Newcomer",
        "e4",
        "nice game so far; I had 12 minutes left on my clock",
        "my knight is stuck on a3",
    ] {
        assert!(heard(nothing).facts.is_empty(), "{nothing}: {:?}", heard(nothing).facts);
    }
}

#[test]
fn verbs_follow_their_new_subject() {
    assert_eq!(third_person("I study physics", "Bo"), "Bo studies physics");
    assert_eq!(third_person("I watch every game", "Bo"), "Bo watches every game");
    assert_eq!(third_person("I don't like blitz", "Bo"), "Bo doesn't like blitz");
    assert_eq!(third_person("I grew up in Lagos", "Bo"), "Bo grew up in Lagos");
    assert_eq!(
        third_person("I broke my wrist skiing", "Bo"),
        "Bo broke their wrist skiing"
    );
    assert_eq!(
        third_person("My sister and I play on Sundays", "Bo"),
        "Bo's sister and Bo play on Sundays"
    );
    assert_eq!(
        third_person("My little brother and I play blitz", "Bo"),
        "Bo's little brother and Bo play blitz"
    );
    assert_eq!(
        third_person("My favourite is the London and I play it daily", "Bo"),
        "Bo's favourite is the London and Bo plays it daily"
    );
    assert_eq!(
        third_person("I've played for ten years", "Bo"),
        "Bo has played for ten years"
    );
}

#[test]
fn moves_in_san_are_recognised() {
    for san in ["nf6", "e4", "exd5", "o-o", "qxf7#", "bb5+"] {
        assert!(rules::is_san(san), "{san}");
    }
    for word in ["hello", "i", "e9", "night"] {
        assert!(!rules::is_san(word), "{word}");
    }
}

#[test]
fn a_fact_keeps_its_date_absolute() {
    let thursday = chrono::NaiveDate::from_ymd_opt(2026, 11, 26).unwrap();
    let heard = Listener::default().hear_on("I am moving to Leeds next week", None, "Ann", thursday);
    assert_eq!(
        heard.facts,
        ["Ann is moving to Leeds in the week of 30 November 2026."],
        "{heard:?}"
    );
    let told = |line| Listener::default().hear_on(line, None, "Ann", thursday).facts;
    assert_eq!(
        told("my grandmother died on monday"),
        ["Ann's grandmother died on 23 November 2026."]
    );
    assert_eq!(
        told("I have a job interview tomorrow, wish me luck"),
        ["Ann has a job interview on 27 November 2026."]
    );
}

#[test]
fn a_move_number_or_a_decimal_ends_no_sentence() {
    for (line, clauses) in [
        ("As white I always go 1.d4", 1),
        ("as black I answer 1. e4 with c5", 1),
        ("I sleep 7.5 hours", 1),
        ("I'm 15. been playing a year", 2),
        ("I was born in 1990. Then we moved", 2),
    ] {
        assert_eq!(rules::clauses(line).len(), clauses, "{line}");
    }
}

#[test]
fn the_i_chat_leaves_out_is_put_back() {
    let restored = |line: &str| subject::restore_subject(rules::clauses(line).remove(0)).text;
    assert_eq!(
        restored("just got engaged last weekend!"),
        "I just got engaged last weekend"
    );
    assert_eq!(
        restored("Learned from YouTube in lockdown"),
        "I learned from YouTube in lockdown"
    );
    assert_eq!(restored("back from school finally"), "I'm back from school finally");
    assert_eq!(restored("Just got off my shift"), "I just got off my shift");
    assert_eq!(
        restored("got my driving test on Monday"),
        "I've got my driving test on Monday"
    );
    assert_eq!(restored("been vegan six years"), "I've been vegan six years");
    assert_eq!(restored("Retiring in December"), "I'm retiring in December");
    assert_eq!(restored("daughter's got a fever"), "my daughter's got a fever");
    assert_eq!(restored("haha love the Sicilian"), "I love the Sicilian");
    assert_eq!(restored("broke my wrist skiing"), "I broke my wrist skiing");
    assert_eq!(
        restored("failed my driving test again"),
        "I failed my driving test again"
    );
    for unchanged in [
        "need a break",
        "tired of this",
        "nice move",
        "I teach piano",
        "like I said",
        "the dog got out",
        "nothing",
    ] {
        assert_eq!(restored(unchanged), unchanged);
    }
}

#[test]
fn we_and_our_speak_for_the_player() {
    assert_eq!(
        third_person("We had a baby girl last month", "Bo"),
        "Bo had a baby girl last month"
    );
    assert_eq!(
        third_person("our twins start school next year", "Bo"),
        "Bo's twins start school next year"
    );
    assert_eq!(third_person("we've got two dogs", "Bo"), "Bo has got two dogs");
    assert_eq!(third_person("we live in Leeds", "Bo"), "Bo lives in Leeds");
}

#[test]
fn a_passing_state_joined_by_so_is_no_part_of_the_fact() {
    let heard = heard("I teach maths in Porto, so I am happy");
    assert_eq!(heard.facts, vec!["Newcomer teaches maths in Porto.".to_string()]);
}

#[test]
fn a_line_opened_by_a_greeting_the_model_hears_is_framed_by_it() {
    let read = |line: &str| -> Vec<(rules::Clause, Vec<(Intent, f32)>)> {
        rules::clauses(line)
            .into_iter()
            .map(|c| {
                let r = rules::read(&c);
                (c, r)
            })
            .collect()
    };
    let reading = |greeting: f32| {
        let mut present = [0.0; Intent::ALL.len()];
        present[Intent::Greeting as usize] = greeting;
        present[Intent::SelfDisclosure as usize] = 0.9;
        Reading {
            main: (Intent::SelfDisclosure, 0.6),
            present,
            remember: 0.9,
        }
    };
    let hello = read("Hi! I teach piano in Lisbon.");
    assert_eq!(framed(&reading(0.8), &hello), Some((Intent::Greeting, 0.8)));
    assert_eq!(
        framed(&reading(0.2), &hello),
        None,
        "the model does not hear a greeting"
    );
    let later = read("I teach piano in Lisbon, hi to your owner.");
    assert_eq!(
        framed(&reading(0.8), &later),
        None,
        "a greeting that does not open the line"
    );
}

#[test]
fn a_fact_of_someone_close_names_them_and_the_player_s_own_names_no_one() {
    use super::kin_of;
    assert_eq!(
        kin_of("Sam's son starts university in September 2027.", "Sam"),
        Some("son")
    );
    assert_eq!(kin_of("Sam's twins start school on Monday", "Sam"), Some("twins"));
    assert_eq!(kin_of("Sam's exam is on 30 November 2026.", "Sam"), None);
    assert_eq!(kin_of("Sam has an exam tomorrow", "Sam"), None);
    assert_eq!(kin_of("Samuel's son starts school", "Sam"), None);
}

#[test]
fn a_line_kept_in_the_player_s_words_is_a_scrap_when_it_says_too_little() {
    use super::facts::a_scrap;
    assert!(a_scrap("Lena said: \"first time here.\"", "Lena"));
    assert!(a_scrap("Sam said: \"back.\"", "Sam"));
    assert!(!a_scrap("Sam said: \"Night shift done, one game then bed.\"", "Sam"));
    assert!(!a_scrap("Sam teaches piano.", "Sam"));
}
