//! The config made into the library's options: how lines are written, how
//! growth runs.

use crate::app::error::AppError;
use crate::config::Config;
use bookminer::growth::GrowthOptions;
use bookminer::output::LineStyle;

/// extend's and grow's options from the config, but for the engines.
pub fn extend_options(config: &Config) -> GrowthOptions {
    GrowthOptions {
        engines: Vec::new(),
        engine_timeout: std::time::Duration::from_secs(config.engine_timeout),
        min_empties: config.min_empties,
        max_positions: config.max_positions,
        start: config.start.clone(),
        window: config.window,
    }
}

/// The config's `error_weight`, checked.
pub fn error_weight(config: &Config) -> Result<bookminer::growth::priority::ErrorWeight, AppError> {
    bookminer::growth::priority::ErrorWeight::new(config.error_weight)
        .map_err(|e| AppError::Usage(format!("error_weight: {e}")))
}

/// How lines are written (mining's files, fix's receipt, diff's lines).
pub fn line_style(config: &Config) -> LineStyle {
    LineStyle { orientation: config.orientation, pass_token: config.pass_token.clone() }
}
