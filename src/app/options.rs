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
        engine_timeout: std::time::Duration::from_secs(config.engines.engine_timeout),
        min_empties: config.growth.min_empties,
        max_positions: config.growth.max_positions,
        start: config.walk.start.clone(),
        window: config.walk.window,
    }
}

/// The config's `error_weight`, checked.
pub fn error_weight(config: &Config) -> Result<bookminer::growth::priority::ErrorWeight, AppError> {
    bookminer::growth::priority::ErrorWeight::new(config.growth.error_weight)
        .map_err(|e| AppError::Usage(format!("error_weight: {e}")))
}

/// How lines are written (mining's files, fix's receipt, diff's lines).
pub fn line_style(config: &Config) -> LineStyle {
    LineStyle { orientation: config.lines.orientation, pass_token: config.lines.pass_token.clone() }
}
