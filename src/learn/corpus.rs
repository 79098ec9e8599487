//! Reading a labelled corpus: JSON lines in named files, each line read
//! into its record and labelled by the caller; an unreadable or mislabelled
//! line names its file and line.

use serde::de::DeserializeOwned;

use super::LearnError;

/// Every non-blank line of `files` (name, text) as `R`, labelled by
/// `label` (which says what is wrong with a line it refuses).
pub fn read_lines<R: DeserializeOwned, T>(
    files: &[(&str, &str)],
    label: impl Fn(R) -> Result<T, String>,
) -> Result<Vec<T>, LearnError> {
    let mut out = Vec::new();
    for (file, text) in files {
        for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let bad = |reason: String| LearnError::Corpus {
                at: format!("{file}:{}", n + 1),
                reason,
            };
            let record: R = serde_json::from_str(line).map_err(|e| bad(e.to_string()))?;
            out.push(label(record).map_err(bad)?);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::Labelled;

    #[derive(serde::Deserialize)]
    struct Line {
        text: String,
        class: usize,
    }

    fn label(line: Line) -> Result<Labelled, String> {
        (line.class < 2)
            .then_some(())
            .ok_or(format!("no class {}", line.class))?;
        Ok(Labelled {
            text: line.text,
            class: line.class,
            flags: Vec::new(),
        })
    }

    #[test]
    fn a_bad_line_is_named_by_its_file_and_number() {
        let good = (
            "a.jsonl",
            "{\"text\": \"x\", \"class\": 1}\n\n{\"text\": \"y\", \"class\": 0}\n",
        );
        assert_eq!(read_lines(&[good], label).unwrap().len(), 2);
        let unknown = (
            "b.jsonl",
            "{\"text\": \"x\", \"class\": 1}\n{\"text\": \"y\", \"class\": 7}\n",
        );
        let err = read_lines(&[good, unknown], label).unwrap_err().to_string();
        assert_eq!(err, "b.jsonl:2: no class 7");
        let broken = ("c.jsonl", "{\"text\": ");
        assert!(
            read_lines(&[broken], label)
                .unwrap_err()
                .to_string()
                .starts_with("c.jsonl:1: ")
        );
    }
}
