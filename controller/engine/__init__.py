"""The hand engine: pure and deterministic, no I/O, no clock, no randomness.

`Hand` plays one hand from forced bets to payout; `Table` owns the seats and the button and runs
hand after hand; `RuleProfile` holds the settings where the rulebooks disagree.
"""
