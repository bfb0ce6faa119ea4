"""Pure math of each model: values, gradients, closed-form steps (no loops, no validation)."""
