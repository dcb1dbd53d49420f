"""Advice in words, each a measured claim: rules of play and their effect by intervention.

A `Rule` (`rules`) names a situation (a condition over the deciding seat's observation, which
encodes its View) and the moves it prescribes there. `RuleAgent` (`arms`) plays a base agent
WITH the rule (where the condition holds it picks among the prescribed legal moves) or WITHOUT
it (there it picks among the other legal moves: the base agent's next choice). `intervention`
plays both arms on the same duplicate deals (same seeds, seats rotated) on the batched engine;
`stats` holds the game-clustered intervals and the multiple-comparison corrections; `findings`
turns the measurements of two disjoint seed sets into published advice (only what replicates).
"""
