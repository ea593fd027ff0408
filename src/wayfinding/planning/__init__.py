"""Planning with the body: characters that move by animation clips and feet rather than as
points — movement planning over a clip graph, locomotion planning along a corridor, footstep
planning for crowds, and motion models fitted to a character controller."""

__all__: list[str] = []
