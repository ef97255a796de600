"""Who is in the room and what each person may do: roles, admissions, identities, hub grants."""
