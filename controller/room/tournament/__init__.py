"""The tournament: registration and the seat draw, eliminations and places, balancing and
breaking tables, payouts and points, the room's chips counted (docs/tournament.md). Pure rules
in their own modules; `store` and `service` are the I/O."""
