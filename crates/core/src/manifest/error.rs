//! [`ManifestError`]: a manifest that does not load or check, and JSON loading with the path of
//! the fault.

use crate::expr::ExprError;
use std::fmt;

/// An error loading or checking a manifest.
#[derive(Debug)]
pub enum ManifestError {
    /// Malformed JSON or an unknown/misspelled key, with its JSON path.
    Json {
        /// Where the text came from.
        origin: String,
        /// JSON path of the fault (`variants[3].passes[0].dispatch`).
        path: String,
        /// The serde message.
        message: String,
    },
    /// An expression that does not parse, with its JSON path.
    Expr {
        /// JSON path of the expression.
        path: String,
        /// The parse error.
        error: ExprError,
    },
    /// A static-check finding.
    Check(Vec<String>),
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ManifestError::Json {
                origin,
                path,
                message,
            } => write!(f, "{origin}: at `{path}`: {message}"),
            ManifestError::Expr { path, error } => {
                write!(f, "manifest expression at `{path}`: {error}")
            }
            ManifestError::Check(items) => {
                write!(
                    f,
                    "manifest check found {} problem{}:",
                    items.len(),
                    if items.len() == 1 { "" } else { "s" }
                )?;
                for i in items {
                    write!(f, "\n  - {i}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for ManifestError {}

/// Deserializes `text` (from `origin`), naming the JSON path of a fault.
pub(super) fn from_json<T: serde::de::DeserializeOwned>(
    text: &str,
    origin: &str,
) -> Result<T, ManifestError> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize(&mut *de).map_err(|e| ManifestError::Json {
        origin: origin.into(),
        path: e.path().to_string(),
        message: e.inner().to_string(),
    })?;
    // Only whitespace may follow the document: trailing text is a damaged or concatenated file.
    de.end().map_err(|e| ManifestError::Json {
        origin: origin.into(),
        path: "(after the document)".into(),
        message: e.to_string(),
    })?;
    Ok(value)
}
