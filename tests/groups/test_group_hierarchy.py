"""The group hierarchy: derived properties against direct computation, nested groups,
membership changes with slot re-matching, pipelines with periods, order independence."""

from __future__ import annotations

import math
import random
import time

import numpy as np
import pytest

from wayfinding import InvalidQueryError
from wayfinding.crowd import Crowd
from wayfinding.groups.hierarchy import STAGES, AgentGroup, Pipeline, Snapshot, Stage, update_groups
from wayfinding.groups.shapes import FormationShape


def make_crowd(n=6, seed=0):
    rng = np.random.default_rng(seed)
    crowd = Crowd()
    ids = [crowd.add(rng.uniform(-5, 5, 2), radius=float(rng.uniform(0.2, 0.6)),
                     max_speed=float(rng.uniform(0.5, 2.0)),
                     max_accel=float(rng.uniform(1.0, 4.0))) for _ in range(n)]
    return crowd, ids


def test_state_of_agents():
    crowd, ids = make_crowd()
    g = AgentGroup(ids)
    s = g.refresh(Snapshot.of(crowd))
    np.testing.assert_allclose(s.barycentre, crowd.position.mean(axis=0))
    d = np.hypot(*(crowd.position - crowd.position.mean(axis=0)).T) + crowd.radius
    assert s.bulk_radius == pytest.approx(d.max())
    assert s.max_speed == crowd.max_speed.min()
    assert s.turn_rate == pytest.approx((crowd.max_accel / crowd.max_speed).min())
    assert s.agents == 6 and g.state is s


def test_state_of_nested_groups_weights_by_agents_and_holds_their_discs():
    crowd, ids = make_crowd()
    inner = AgentGroup(ids[:4])
    outer = AgentGroup([inner, ids[4], ids[5]])
    snap = Snapshot.of(crowd)
    s = outer.refresh(snap)
    np.testing.assert_allclose(s.barycentre, crowd.position.mean(axis=0))
    i = inner.state
    assert i is not None and i.agents == 4
    reach = max(np.hypot(*(i.barycentre - s.barycentre)) + i.bulk_radius,
                *(np.hypot(*(crowd.position[k] - s.barycentre)) + crowd.radius[k]
                  for k in (4, 5)))
    assert s.bulk_radius == pytest.approx(reach)
    assert s.max_speed == crowd.max_speed.min()
    assert outer.agents.tolist() == ids


def test_unlimited_acceleration_turns_freely():
    crowd = Crowd()
    g = AgentGroup([crowd.add((0.0, 0.0)), crowd.add((1.0, 0.0), max_speed=0.0)])
    assert g.refresh(Snapshot.of(crowd)).turn_rate == math.inf


def test_snapshot_is_a_read_only_copy():
    crowd, ids = make_crowd(2)
    snap = Snapshot.of(crowd)
    before = snap.position.copy()
    crowd.step(0.5, velocity=np.ones((2, 2)))
    np.testing.assert_array_equal(snap.position, before)
    with pytest.raises(ValueError):
        snap.position[0, 0] = 3.0


def test_membership_changes_refit_the_shape_and_rematch_slots():
    crowd, ids = make_crowd(5)
    g = AgentGroup(ids[:3], shape=FormationShape.wedge(3, spacing=1.0))
    assert g.shape == FormationShape.wedge(3, spacing=1.0)
    g.assign(Snapshot.of(crowd), (1.0, 0.0))
    g.add(ids[3])
    g.add(ids[4])
    assert g.shape == FormationShape.wedge(5, spacing=1.0) and g.assignment is None
    out = g.assign(Snapshot.of(crowd), (0.0, 1.0))
    assert sorted(out.tolist()) == list(range(5))
    g.remove(ids[0])
    assert len(g.shape) == 4 and g.assignment is None
    with pytest.raises(InvalidQueryError, match="assign"):
        g.slot_members()
    g.assign(Snapshot.of(crowd), (1.0, 0.0))
    assert sorted(g.slot_members()) == sorted(ids[1:])


@pytest.mark.parametrize("call, match", [
    (lambda g, i: g.add(i[0]), "already"),
    (lambda g, i: g.add(True), "member"),
    (lambda g, i: g.add(-1), "member"),
    (lambda g, i: g.add(g), "inside itself"),
    (lambda g, i: g.remove(99), "not in the group"),
    (lambda g, i: g.refresh("crowd"), "Snapshot"),
    (lambda g, i: AgentGroup([], shape="wedge"), "shape"),
    (lambda g, i: AgentGroup([]).refresh(None), "Snapshot"),
    (lambda g, i: g.assign(None, (1.0, 0.0)), "no shape"),
])
def test_bad_input(call, match):
    crowd, ids = make_crowd(2)
    g = AgentGroup(ids)
    with pytest.raises(InvalidQueryError, match=match):
        call(g, ids)


def test_an_agent_or_a_group_appears_once_in_a_tree():
    inner = AgentGroup([1, 2])
    outer = AgentGroup([inner, 5])
    for refused, match in [(lambda: outer.add(1), "agent 1 is already"),
                           (lambda: inner.add(5), "agent 5 is already"),
                           (lambda: outer.add(AgentGroup([AgentGroup([2])])), "agent 2"),
                           (lambda: AgentGroup([inner, 2]), "agent 2"),
                           (lambda: outer.add(AgentGroup([inner])), "group may appear")]:
        with pytest.raises(InvalidQueryError, match=match):
            refused()
        assert outer.agents.tolist() == [1, 2, 5] and len(outer) == 2
    empty = AgentGroup([])
    outer.add(AgentGroup([empty]))
    with pytest.raises(InvalidQueryError, match="group may appear"):
        inner.add(empty)
    with pytest.raises(InvalidQueryError, match="agent 2") as caught:
        AgentGroup([inner, 8, 2])  # refused, though its traceback keeps it alive
    inner.add(8)                   # new to the tree: taken, and seen from the top
    assert outer.agents.tolist() == [1, 2, 8, 5] and caught.value
    outer.remove(inner)            # no longer in outer's tree: 1 may join outer
    outer.add(1)
    assert outer.agents.tolist() == [5, 1] and inner.agents.tolist() == [1, 2, 8]


def test_a_large_group_is_made_in_linear_time():
    # Every member is checked against the whole tree: once, not once per member added
    # (10,000 agents took 5.5 s so).
    t0 = time.perf_counter()
    big = AgentGroup(range(50_000))
    outer = AgentGroup([big, AgentGroup(range(50_000, 60_000))])
    assert time.perf_counter() - t0 < 5.0 and len(outer.agents) == 60_000
    with pytest.raises(InvalidQueryError, match="agent 49999 is already"):
        AgentGroup([big, 49_999])


def test_members_added_one_by_one_cost_their_own_size():
    # add() checks the newcomer against the tree's kept sets (16,000 adds took 14 s when
    # each walked the whole tree).
    inner = AgentGroup([])
    outer = AgentGroup([inner, AgentGroup([])])
    t0 = time.perf_counter()
    for i in range(16_000):
        inner.add(i)
    assert time.perf_counter() - t0 < 3.0 and len(outer.agents) == 16_000
    with pytest.raises(InvalidQueryError, match="agent 15999 is already"):
        outer.members[1].add(15_999)


@pytest.mark.parametrize("seed", range(20))
def test_random_joins_and_leaves_are_judged_as_by_the_whole_tree(seed):
    rng = random.Random(seed)

    def tree(g):       # the groups and agents in g and below, walked afresh
        groups, agents = [g], []
        for m in g.members:
            sub = tree(m) if isinstance(m, AgentGroup) else ([], [m])
            groups += sub[0]
            agents += sub[1]
        return groups, agents

    def tops(g):       # a group may sit in several trees: it joins each
        parents = list(g._parents)
        return [t for p in parents for t in tops(p)] if parents else [g]

    groups = [AgentGroup([]) for _ in range(6)]
    for _ in range(150):
        g = rng.choice(groups)
        member = rng.choice(groups) if rng.random() < 0.3 else rng.randrange(12)
        if g.members and rng.random() < 0.3:
            g.remove(rng.choice(g.members))
            continue
        held_groups, held_agents = [], []
        for t in tops(g):
            held = tree(t)
            held_groups += held[0]
            held_agents += held[1]
        if isinstance(member, AgentGroup):
            new_groups, new_agents = tree(member)
            ok = g not in new_groups and not any(x is y for x in new_groups
                                                 for y in held_groups) \
                and not set(new_agents) & set(held_agents)
        else:
            ok = member not in held_agents
        try:
            g.add(member)
        except InvalidQueryError:
            assert not ok
        else:
            assert ok
        for h in groups:
            below = tree(h)
            assert set(map(id, below[0][1:])) == set(map(id, h._below[0]))
            assert set(below[1]) == h._below[1] and len(below[1]) == len(h._below[1])


def test_cycles_and_unknown_agents_are_refused():
    crowd, ids = make_crowd(2)
    inner = AgentGroup([ids[0]])
    outer = AgentGroup([inner])
    with pytest.raises(InvalidQueryError, match="inside itself"):
        inner.add(outer)
    with pytest.raises(InvalidQueryError, match="agent 42"):
        AgentGroup([42]).refresh(Snapshot.of(crowd))
    with pytest.raises(InvalidQueryError, match="empty"):
        AgentGroup([]).refresh(Snapshot.of(crowd))


def test_pipeline_runs_stages_in_order_on_their_steps():
    log = []
    stages = [Stage(name, lambda g, s, k, name=name: log.append((k, name)),
                    period=p, phase=ph)
              for name, p, ph in zip(STAGES, (4, 2, 1, 1), (0, 1, 0, 0))]
    pipe = Pipeline(stages)
    crowd, ids = make_crowd(2)
    g = AgentGroup(ids, pipeline=pipe)
    for k in range(5):
        update_groups([g], crowd, k)
    assert log == [(0, "planning"), (0, "steering"), (0, "avoidance"),
                   (1, "formation"), (1, "steering"), (1, "avoidance"),
                   (2, "steering"), (2, "avoidance"),
                   (3, "formation"), (3, "steering"), (3, "avoidance"),
                   (4, "planning"), (4, "steering"), (4, "avoidance")]


@pytest.mark.parametrize("call", [
    lambda: Stage("a", 3),
    lambda: Stage("a", print, period=0),
    lambda: Stage("a", print, period=2, phase=2),
    lambda: Pipeline([print]),
    lambda: Pipeline([Stage("a", print), Stage("a", print)]),
    lambda: Pipeline([]).due(-1),
])
def test_bad_stages(call):
    with pytest.raises(InvalidQueryError):
        call()


def seek_slots(out):
    """A steering stage: each agent's velocity towards its slot, from the snapshot only."""
    def run(group, snap, step):
        group.assign(snap, (1.0, 0.0))
        slots = group.shape.world_slots(group.state.barycentre, (1.0, 0.0))
        for slot, member in zip(slots, group.slot_members()):
            row = snap.rows([member])[0]
            out[member] = slot - snap.position[row]
    return run


def run_groups(order_seed):
    crowd, ids = make_crowd(12, seed=5)
    out = {}
    pipe = Pipeline([Stage("steering", seek_slots(out))])
    a_ids, b_ids = ids[:7], ids[7:]
    rnd = random.Random(order_seed)
    if order_seed:
        rnd.shuffle(a_ids)
        rnd.shuffle(b_ids)
    groups = [AgentGroup(a_ids, shape=FormationShape.wedge(7, spacing=1.5), pipeline=pipe),
              AgentGroup(b_ids, shape=FormationShape.box(5, spacing=1.0), pipeline=pipe)]
    if order_seed:
        rnd.shuffle(groups)
    for step in range(3):
        update_groups(groups, crowd, step)
        v = np.array([out[i] for i in crowd.ids.tolist()])
        crowd.step(0.1, velocity=np.clip(v, -1, 1))
    return crowd.position.copy()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_member_and_group_order_does_not_change_the_result(seed):
    np.testing.assert_array_equal(run_groups(0), run_groups(seed))


def test_a_user_shape_gets_its_dropped_slots_back_when_members_return():
    crowd, ids = make_crowd(4)
    base = FormationShape.from_offsets([[1.0, 0.0], [0.0, 1.0], [0.0, -1.0], [-1.0, 0.0]],
                                       roles=[0, 1, 1, 2])
    g = AgentGroup(ids, shape=base)
    g.remove(ids[3])
    g.remove(ids[2])
    assert g.shape == base.fit(2)
    g.add(ids[2])
    g.add(ids[3])
    assert g.shape == base


def test_members_and_groups_that_are_not_sequences_are_refused():
    with pytest.raises(InvalidQueryError, match="members"):
        AgentGroup(None)
    with pytest.raises(InvalidQueryError, match="groups"):
        update_groups(None, Crowd(), 0)
