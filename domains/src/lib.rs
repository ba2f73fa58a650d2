//! Numeric abstract domains (placeholder until the domains work lands).
