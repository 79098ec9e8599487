//! The day a memory says something happened on, when its text names one
//! ("Diary, 23 Nov 2026", "[import] 2026-11-19", "on November 9, 2026"):
//! an imported memory's row was made the day it came in, so of two past
//! games only the words tell which was the last.

use std::str::FromStr;

use chrono::{Month, NaiveDate};

/// The latest date the text names in full (day, month and year).
pub fn named_date(text: &str) -> Option<NaiveDate> {
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || ",.;:()[]|".contains(c))
        .filter(|w| !w.is_empty())
        .collect();
    let mut found: Vec<NaiveDate> = words.iter().filter_map(|w| iso(w)).collect();
    for triple in words.windows(3) {
        let day_first = || date(triple[2], triple[1], triple[0]);
        let month_first = || date(triple[2], triple[0], triple[1]);
        found.extend(day_first().or_else(month_first));
    }
    found.into_iter().max()
}

/// The latest month the text names with its year ("Feb 2026", "in
/// October 2025"), as its first day: for ordering what a writer dated
/// less finely.
pub fn named_month(text: &str) -> Option<NaiveDate> {
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || ",.;:()[]|".contains(c))
        .filter(|w| !w.is_empty())
        .collect();
    words.windows(2).filter_map(|pair| date(pair[1], pair[0], "1")).max()
}

fn iso(word: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(word, "%Y-%m-%d").ok()
}

/// A date from its year, month name and day words ("9th" counts).
fn date(year: &str, month: &str, day: &str) -> Option<NaiveDate> {
    let year: i32 = year.parse().ok().filter(|y| (1900..=2200).contains(y))?;
    let month = Month::from_str(month).ok()?.number_from_month();
    let day: u32 = day.trim_end_matches(|c: char| c.is_ascii_alphabetic()).parse().ok()?;
    NaiveDate::from_ymd_opt(year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(y: i32, m: u32, d: u32) -> Option<NaiveDate> {
        NaiveDate::from_ymd_opt(y, m, d)
    }

    #[test]
    fn dates_are_read_in_the_ways_writers_give_them() {
        assert_eq!(named_date("Diary, 23 Nov 2026. Oskar castled long."), day(2026, 11, 23));
        assert_eq!(named_date("[import] 2026-11-19 | draw"), day(2026, 11, 19));
        assert_eq!(named_date("We met on November 9, 2026 at the club"), day(2026, 11, 9));
        assert_eq!(named_date("the 3rd of March 2025"), None, "'of' between: not in full");
        assert_eq!(
            named_date("lost on 2 Nov 2026, won on 21 Nov 2026"),
            day(2026, 11, 21),
            "the latest"
        );
        assert_eq!(named_date("plays May 12 openings"), None, "no year");
        assert_eq!(named_date("31 Feb 2026"), None, "no such day");
    }

    #[test]
    fn a_month_and_year_date_a_memory_to_the_month() {
        assert_eq!(
            named_month("Feb 2026. Classical Caro, mated on move 31"),
            day(2026, 2, 1)
        );
        assert_eq!(named_month("in October 2025 and again in March 2026"), day(2026, 3, 1));
        assert_eq!(named_month("Blitz, autumn 2025"), None);
    }
}
