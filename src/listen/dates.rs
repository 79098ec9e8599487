//! A fact's dates made absolute: "I have an exam tomorrow", told on
//! Thursday 26 November 2026, is kept as "an exam on 27 November 2026",
//! true whenever it is read again. Relative words are the structure of a
//! date, so rules read them: day words, weekdays, weeks and months.

use chrono::{Datelike, Duration, Months, NaiveDate, Weekday};

/// A weekday by its full name ("monday"; "sun" and "sat" are other words).
fn weekday(word: &str) -> Option<Weekday> {
    word.parse().ok().filter(|_| word.len() >= 6)
}

/// A month's number by its full name ("march", "may").
fn month(word: &str) -> Option<u32> {
    let month: chrono::Month = word.parse().ok()?;
    month
        .name()
        .eq_ignore_ascii_case(word)
        .then(|| month.number_from_month())
}

/// `fact` with its relative dates replaced by absolute ones, from `today`.
pub fn absolute(fact: &str, today: NaiveDate) -> String {
    let words: Vec<&str> = fact.split(' ').collect();
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        let (core, tail) = split_tail(words[i]);
        let next = words.get(i + 1).map(|w| split_tail(w));
        let lower = core.to_lowercase();
        let third = words.get(i + 2).map(|w| split_tail(w));
        let triple = next
            .zip(third)
            .map(|((n, _), (t, _))| [lower.as_str(), &n.to_lowercase(), &t.to_lowercase()].join(" "));
        if let Some(phrase) = triple.as_deref().and_then(|t| three_words(t, today)) {
            drop_preposition(&mut out);
            out.push(format!("{phrase}{}", third.map_or("", |(_, t)| t)));
            i += 3;
            continue;
        }
        let past = told_as_past(&words[..i]);
        let pair = next.map(|(n, _)| format!("{lower} {}", n.to_lowercase()));
        let after_on = out.last().is_some_and(|w| w.eq_ignore_ascii_case("on"));
        let day_of_month = next
            .filter(|_| lower == "the" && after_on)
            .and_then(|(n, _)| nth_day(&n.to_lowercase(), today, past));
        if let Some(phrase) = day_of_month.or_else(|| pair.as_deref().and_then(|p| two_words(p, today, past))) {
            drop_preposition(&mut out);
            out.push(format!("{phrase}{}", next.map_or("", |(_, t)| t)));
            i += 2;
            continue;
        }
        // "every Monday" is a habit, not a date.
        let habit = out
            .last()
            .is_some_and(|w| matches!(w.to_lowercase().as_str(), "every" | "each" | "most" | "some"));
        match one_word(&lower, today, past).filter(|_| !habit) {
            Some(phrase) => {
                drop_preposition(&mut out);
                out.push(format!("{phrase}{tail}"));
            }
            None => out.push(words[i].to_string()),
        }
        i += 1;
    }
    out.join(" ")
}

/// A fact of the past told with no date, dated by the month it was told
/// in: "Sam passed their nursing exam." -> "Sam passed their nursing exam
/// in November 2026." Only one told in the past ("Sam's mum is in
/// hospital" stays as it is).
pub fn of_this_month(fact: &str, today: NaiveDate) -> String {
    let words: Vec<&str> = fact.split(' ').collect();
    if !told_as_past(&words) {
        return fact.to_string();
    }
    let body = fact.trim_end_matches(['.', '!']);
    let end = &fact[body.len()..];
    format!("{body} in {}{end}", today.format("%B %Y"))
}

/// "tomorrow" -> "on 27 November 2026"; a weekday -> its next date, or
/// its last one when told of the past ("died on Monday").
fn one_word(word: &str, today: NaiveDate, past: bool) -> Option<String> {
    let day = match word {
        "today" | "tonight" => today,
        "tomorrow" => today + Duration::days(1),
        "yesterday" => today - Duration::days(1),
        _ if past => next_weekday(today, weekday(word)?) - Duration::days(7),
        _ => next_weekday(today, weekday(word)?),
    };
    Some(on(day))
}

/// Whether the words before a date tell of the past: a verb in the past
/// ("died", "had", "got married"), not one after "is" or "getting" ("is
/// getting married in June", "is retired").
fn told_as_past(before: &[&str]) -> bool {
    const PAST: [&str; 24] = [
        "was", "were", "had", "did", "got", "went", "came", "saw", "made", "took", "won", "lost", "left", "met",
        "bought", "broke", "fell", "gave", "found", "began", "ran", "flew", "drove", "sold",
    ];
    const NOT_PAST: [&str; 10] = [
        "need", "seed", "feed", "weed", "deed", "speed", "indeed", "hundred", "proceed", "breed",
    ];
    const BEFORE_ADJECTIVE: [&str; 9] = ["is", "am", "are", "be", "being", "get", "gets", "getting", "will"];
    before.iter().enumerate().any(|(i, w)| {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
        let after_be = i > 0 && BEFORE_ADJECTIVE.contains(&before[i - 1].to_lowercase().as_str());
        let regular = w.len() >= 4 && w.ends_with("ed") && !NOT_PAST.contains(&w.as_str());
        PAST.contains(&w.as_str()) || (regular && !after_be)
    })
}

/// "next week", "last month", "next tuesday", "in march", ...
fn two_words(pair: &str, today: NaiveDate, past: bool) -> Option<String> {
    let (first, second) = pair.split_once(' ')?;
    let (weekday, month) = (weekday(second), month(second));
    let this_month = today.with_day(1)?;
    let part_of_day = matches!(second, "morning" | "afternoon" | "evening" | "night");
    let found = match (first, second) {
        ("this", "morning" | "afternoon" | "evening") => Some((on(today), today)),
        // "tomorrow morning" is "on the morning of 30 November 2026", not
        // "on 30 November 2026 morning".
        ("tomorrow" | "yesterday", _) if part_of_day => {
            let day = today + Duration::days(if first == "tomorrow" { 1 } else { -1 });
            Some((format!("on the {second} of {}", day_month_year(day)), day))
        }
        ("last", "night") => Some((on(today - Duration::days(1)), today)),
        ("next", "week") => Some(week_of(today + Duration::days(7))),
        ("last", "week") => Some(week_of(today - Duration::days(7))),
        ("last", "weekend") => Some(weekend_of(this_weekend(today) - Duration::days(7))),
        ("this", "weekend") | ("the", "weekend") => Some(weekend_of(this_weekend(today))),
        ("next", "month") => this_month.checked_add_months(Months::new(1)).map(month_of),
        ("last", "month") => this_month.checked_sub_months(Months::new(1)).map(month_of),
        ("this", "month") => Some(month_of(this_month)),
        ("next", _) if weekday.is_some() => {
            let day = next_weekday(today, weekday?);
            Some((on(day), day))
        }
        ("last", _) if weekday.is_some() => {
            let day = next_weekday(today, weekday?) - Duration::days(7);
            Some((on(day), day))
        }
        ("in", _) | ("this", _) if month.is_some() && past => {
            let m = month?;
            let year = if m > today.month() {
                today.year() - 1
            } else {
                today.year()
            };
            NaiveDate::from_ymd_opt(year, m, 1).map(month_of)
        }
        ("in", _) | ("this", _) | ("next", _) if month.is_some() => {
            let m = month?;
            let year = if m < today.month() {
                today.year() + 1
            } else {
                today.year()
            };
            NaiveDate::from_ymd_opt(year, m, 1).map(month_of)
        }
        ("last", _) if month.is_some() => {
            let m = month?;
            let year = if m >= today.month() {
                today.year() - 1
            } else {
                today.year()
            };
            NaiveDate::from_ymd_opt(year, m, 1).map(month_of)
        }
        _ => None,
    };
    found.map(|(phrase, _)| phrase)
}

/// "(on) the 14th": that day of this month, or of the next when it has
/// gone (the last one when told of the past).
fn nth_day(word: &str, today: NaiveDate, past: bool) -> Option<String> {
    let digits = word.strip_suffix("st").or_else(|| word.strip_suffix("nd"));
    let digits = digits
        .or_else(|| word.strip_suffix("rd"))
        .or_else(|| word.strip_suffix("th"))?;
    let day: u32 = digits.parse().ok()?;
    let this_month = today.with_day(day)?;
    let found = match (past, this_month < today) {
        (false, true) => this_month.checked_add_months(Months::new(1))?,
        (true, false) if this_month > today => this_month.checked_sub_months(Months::new(1))?,
        _ => this_month,
    };
    Some(on(found))
}

/// "three weeks ago", "2 days ago", "a month ago", "in ten days": a count
/// of days, weeks, months or years before or after `today`.
fn three_words(triple: &str, today: NaiveDate) -> Option<String> {
    let mut words = triple.split(' ');
    let (a, b, c) = (words.next()?, words.next()?, words.next()?);
    let (count, unit, ahead) = match (a, c) {
        ("in", _) => (count(b)?, c, true),
        (_, "ago") => (count(a)?, b, false),
        _ => return None,
    };
    let sign = if ahead { 1 } else { -1 };
    let phrase = match unit.trim_end_matches('s') {
        "day" => on(today + Duration::days(sign * i64::from(count))),
        "week" => week_of(today + Duration::days(sign * 7 * i64::from(count))).0,
        "month" => {
            let first = today.with_day(1)?;
            let moved = match ahead {
                true => first.checked_add_months(Months::new(count))?,
                false => first.checked_sub_months(Months::new(count))?,
            };
            month_of(moved).0
        }
        "year" => format!("in {}", today.year() + sign as i32 * count as i32),
        _ => return None,
    };
    Some(phrase)
}

/// "3", "three", "a": how many, up to twelve (longer spans are vaguer).
fn count(word: &str) -> Option<u32> {
    const WORDS: &[&str] = &[
        "a", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    ];
    let n = word
        .parse::<u32>()
        .ok()
        .or_else(|| WORDS.iter().position(|w| *w == word).map(|i| i as u32 + 1))?;
    (1..=12).contains(&n).then_some(n)
}

/// The first such weekday after `today`.
fn next_weekday(today: NaiveDate, weekday: Weekday) -> NaiveDate {
    let ahead = (7 + weekday.num_days_from_monday() as i64 - today.weekday().num_days_from_monday() as i64) % 7;
    today + Duration::days(if ahead == 0 { 7 } else { ahead })
}

/// The Saturday of "this weekend": the coming one on a weekday, today on a
/// Saturday, and yesterday on a Sunday (the weekend is still on).
fn this_weekend(today: NaiveDate) -> NaiveDate {
    match today.weekday() {
        Weekday::Sun => today - Duration::days(1),
        _ => next_weekday(today - Duration::days(1), Weekday::Sat),
    }
}

fn weekend_of(saturday: NaiveDate) -> (String, NaiveDate) {
    (format!("on the weekend of {}", day_month_year(saturday)), saturday)
}

fn on(day: NaiveDate) -> String {
    format!("on {}", day_month_year(day))
}

fn day_month_year(day: NaiveDate) -> String {
    day.format("%-d %B %Y").to_string()
}

fn week_of(day: NaiveDate) -> (String, NaiveDate) {
    let monday = day - Duration::days(day.weekday().num_days_from_monday() as i64);
    (format!("in the week of {}", day_month_year(monday)), monday)
}

fn month_of(first: NaiveDate) -> (String, NaiveDate) {
    (first.format("in %B %Y").to_string(), first)
}

/// "on tomorrow" would say "on" twice: the date brings its own.
fn drop_preposition(out: &mut Vec<String>) {
    if out
        .last()
        .is_some_and(|w| matches!(w.to_lowercase().as_str(), "on" | "in" | "this" | "next"))
    {
        out.pop();
    }
}

/// A word and the punctuation after it.
fn split_tail(word: &str) -> (&str, &str) {
    let end = word.trim_end_matches(|c: char| !c.is_alphanumeric()).len();
    word.split_at(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thursday() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 26).unwrap()
    }

    #[test]
    fn relative_days_weeks_and_months_become_dates() {
        let cases = [
            ("Sam has an exam tomorrow.", "Sam has an exam on 27 November 2026."),
            (
                "Sam has a job interview on Monday",
                "Sam has a job interview on 30 November 2026",
            ),
            ("Sam had a baby last month.", "Sam had a baby in October 2026."),
            (
                "Sam is moving to Leeds next week",
                "Sam is moving to Leeds in the week of 30 November 2026",
            ),
            ("Sam flies home next Saturday.", "Sam flies home on 28 November 2026."),
            ("Sam is getting married in June", "Sam is getting married in June 2027"),
            ("Sam got engaged last Saturday", "Sam got engaged on 21 November 2026"),
            ("Sam teaches piano.", "Sam teaches piano."),
            (
                "Sam has a job interview tomorrow morning",
                "Sam has a job interview on the morning of 27 November 2026",
            ),
            (
                "Sam's flight landed yesterday evening.",
                "Sam's flight landed on the evening of 25 November 2026.",
            ),
            (
                "Sam's grandmother died on Monday",
                "Sam's grandmother died on 23 November 2026",
            ),
            ("Sam got married in June", "Sam got married in June 2026"),
            ("Sam is booked on Monday", "Sam is booked on 30 November 2026"),
            (
                "Sam had a baby three weeks ago.",
                "Sam had a baby in the week of 2 November 2026.",
            ),
            ("Sam moved here 2 years ago", "Sam moved here in 2024"),
            ("Sam got a dog a month ago", "Sam got a dog in October 2026"),
            (
                "Sam starts a new job in ten days",
                "Sam starts a new job on 6 December 2026",
            ),
            (
                "Sam got engaged last weekend!",
                "Sam got engaged on the weekend of 21 November 2026!",
            ),
            ("Sam plays in 3 tournaments", "Sam plays in 3 tournaments"),
            (
                "Sam's cat got hit by a car this morning",
                "Sam's cat got hit by a car on 26 November 2026",
            ),
            (
                "Sam's sister had twins last night.",
                "Sam's sister had twins on 25 November 2026.",
            ),
            ("Sam's hearing is on the 14th.", "Sam's hearing is on 14 December 2026."),
            ("Sam's hearing is on the 30th.", "Sam's hearing is on 30 November 2026."),
            ("Sam moved in on the 3rd", "Sam moved in on 3 November 2026"),
            ("Sam won the 3rd round", "Sam won the 3rd round"),
            (
                "Sam plays every Monday at the club.",
                "Sam plays every Monday at the club.",
            ),
        ];
        for (told, kept) in cases {
            assert_eq!(absolute(told, thursday()), kept, "{told}");
        }
    }

    #[test]
    fn past_news_told_without_a_day_is_dated_by_its_month() {
        assert_eq!(
            of_this_month("Sam passed their nursing exam.", thursday()),
            "Sam passed their nursing exam in November 2026."
        );
        assert_eq!(
            of_this_month("Sam's mum is in hospital.", thursday()),
            "Sam's mum is in hospital."
        );
    }

    #[test]
    fn a_weekend_told_at_the_weekend_is_the_one_under_way() {
        let saturday = NaiveDate::from_ymd_opt(2026, 11, 28).unwrap();
        let sunday = NaiveDate::from_ymd_opt(2026, 11, 29).unwrap();
        for today in [saturday, sunday] {
            assert_eq!(
                absolute("Sam has thirty papers to mark this weekend", today),
                "Sam has thirty papers to mark on the weekend of 28 November 2026",
                "{today}"
            );
            assert_eq!(
                absolute("Sam got engaged last weekend", today),
                "Sam got engaged on the weekend of 21 November 2026",
                "{today}"
            );
        }
    }
}
