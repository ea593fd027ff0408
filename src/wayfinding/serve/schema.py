"""The OpenAPI 3.1 schema of the path service's routes."""

from __future__ import annotations

from typing import Any

from .. import __version__
from .limits import MAX_DT
from .protocol import BINARY

_NUMBER = {"type": "number"}
_POINT = {"type": "array", "items": _NUMBER, "minItems": 2, "maxItems": 3,
          "description": "a grid cell [x, y] or voxel [x, y, z] (integers), or a mesh point "
                         "[x, y] (2D navmesh) or [x, y, z] (navmesh3d, y up)"}
_CELL = {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2,
         "description": "a cell [x, y]"}
_XY = {"type": "array", "items": _NUMBER, "minItems": 2, "maxItems": 2,
       "description": "a world point [x, y]"}
_NAME = {"name": "name", "in": "path", "required": True, "schema": {"type": "string"},
         "description": "the world's name"}
_ID = {"name": "id", "in": "path", "required": True, "schema": {"type": "string"},
       "description": "the crowd's id"}
_ERRORS = {"400": "bad JSON, coordinates, method or value, or a query the world does not "
                  "answer",
           "404": "unknown world, crowd or page file",
           "409": "the crowd is stepping for another request",
           "413": "request body too large",
           "422": "over a limit: expansions, field cells, agents or steps",
           "429": "too many live crowds", "503": "past the time limit per request",
           "501": "a navmesh or crowd without shapely (the [geometry] extra)"}
_BINARY_NOTE = ("; with Accept: application/octet-stream the raw little-endian array, its "
                "shape in X-Shape (comma separated) and numpy dtype in X-Dtype")


def _errors(*codes: str) -> dict[str, Any]:
    return {code: {"description": _ERRORS[code], "content": {"application/json": {
        "schema": {"$ref": "#/components/schemas/Error"}}}} for code in codes}


def _body(required: list[str], properties: dict[str, Any]) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": {
        "type": "object", "required": required, "properties": properties}}}}


def _answer(description: str, ref: str, *, binary: bool = False) -> dict[str, Any]:
    content: dict[str, Any] = {"application/json": {"schema": {
        "$ref": f"#/components/schemas/{ref}"}}}
    if binary:
        content[BINARY] = {"schema": {"type": "string", "contentMediaType": BINARY}}
        description += _BINARY_NOTE
    return {"200": {"description": description, "content": content}}


def _op(op: str, summary: str, params: list[dict[str, Any]], responses: dict[str, Any],
        errors: tuple[str, ...], body: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"summary": summary, "operationId": op, "parameters": params,
                           "responses": {**responses, **_errors(*errors)}}
    if body is not None:
        out["requestBody"] = body
    return out


def _page(op: str, summary: str) -> dict[str, Any]:
    return {"get": _op(op, summary, [], {"200": {"description": "the playground page",
                                                 "content": {"text/html": {}}}}, ())}


def _play(op: str, summary: str, required: list[str]) -> dict[str, Any]:
    """A playground API route: its body's fields are listed in ``wayfinding.serve.playground``."""
    body = {"required": True, "content": {"application/json": {"schema": {
        "type": "object", "required": required}}}}
    return {"post": _op(op, summary, [], {"200": {"description": summary, "content": {
        "application/json": {"schema": {"type": "object"}}}}},
        ("400", "413", "422", "501"), body)}


def _playground() -> dict[str, Any]:
    """The playground's page and the JSON API it calls on worlds drawn in the browser."""
    grid = ["width", "height", "cells"]
    return {
        "/": _page("playground", "the playground page"),
        "/playground": _page("playgroundPage", "the playground page"),
        "/playground/static/{name}": {"get": _op(
            "playgroundStatic", "the page's script and style sheet", [
                {"name": "name", "in": "path", "required": True, "schema": {"type": "string"},
                 "description": "the file's name"}],
            {"200": {"description": "the file"}}, ("404",))},
        "/playground/api/methods": {"get": _op(
            "playgroundMethods", "the grid path methods, diagonal rules and limits", [],
            {"200": {"description": "methods", "content": {"application/json": {
                "schema": {"type": "object"}}}}}, ())},
        "/playground/api/grid": _play("playgroundGrid", "a search on a drawn grid, slice "
                                      "by slice", [*grid, "start", "goal"]),
        "/playground/api/navmesh": _play("playgroundNavmesh", "a navmesh path around drawn "
                                         "obstacles: mesh, corridor, portals, funnel",
                                         ["width", "height", "start", "goal"]),
        "/playground/api/flow": _play("playgroundFlow", "a flow field on a drawn grid",
                                      [*grid, "goal"]),
        "/playground/api/crowd": _play("playgroundCrowd", "an ORCA crowd's frames",
                                       ["width", "height", "agents"]),
    }


def openapi_schema() -> dict[str, Any]:
    """The OpenAPI 3.1 schema of the service's routes."""
    crowd = _answer("the crowd: agent ids, positions, velocities, states", "Crowd",
                    binary=True)
    return {
        "openapi": "3.1.0",
        "info": {"title": "wayfinding path service", "version": __version__},
        "paths": {
            "/worlds": {"get": _op("listWorlds", "the loaded worlds, their kinds, queries and "
                                   "methods", [], _answer("worlds", "Worlds"), ())},
            "/worlds/{name}/path": {"post": _op(
                "findPath", "a path from start to goal", [_NAME],
                _answer("the path result", "PathResult"),
                ("400", "404", "413", "422", "503"), _body(["start", "goal"], {
                    "start": _POINT, "goal": _POINT,
                    "method": {"type": "string", "description": "a method the world lists"},
                    "partial": {"type": "boolean", "description": "navmesh worlds: the path "
                                "to the nearest reachable point when the goal is not"},
                    "corridor": {"type": "boolean", "description": "navmesh worlds: also "
                                 "the polygons walked through (2D: and portals)"},
                    "radius": {"type": "number", "minimum": 0,
                               "description": "clearance meshes: the agent's radius"}}))},
            "/worlds/{name}/distance": {"post": _op(
                "distanceMap", "cost from the nearest source to every cell (grid worlds)",
                [_NAME], _answer("rows of costs, null where unreachable", "DistanceMap",
                                 binary=True),
                ("400", "404", "413", "422", "503"), _body(["sources"], {
                    "sources": {"type": "array", "items": _CELL, "minItems": 1}}))},
            "/worlds/{name}/flow": {"post": _op(
                "flowField", "the flow field toward the nearest goal (grid worlds)", [_NAME],
                _answer("direction codes and the integration field; the binary form holds "
                        "the array named by 'array'", "FlowField", binary=True),
                ("400", "404", "413", "422", "503"), _body(["goals"], {
                    "goals": {"type": "array", "items": _CELL, "minItems": 1},
                    "method": {"type": "string", "enum": ["eikonal", "dijkstra"],
                               "default": "eikonal"},
                    "array": {"type": "string", "enum": ["codes", "field"],
                              "default": "codes",
                              "description": "the array of the binary form"}}))},
            "/worlds/{name}/crowds": {"post": _op(
                "createCrowd", "a new ORCA crowd on a grid or 2D navmesh world", [_NAME],
                _answer("the crowd", "Crowd"), ("400", "404", "413", "422", "429"),
                _body(["agents"], {"agents": {"type": "array", "minItems": 1, "items": {
                    "type": "object", "required": ["position"], "properties": {
                        "position": _XY, "goal": _XY,
                        "radius": {"type": "number", "exclusiveMinimum": 0},
                        "max_speed": {"type": "number", "exclusiveMinimum": 0}}}}}))},
            "/crowds/{id}": {
                "get": _op("readCrowd", "a crowd's agents", [_ID], crowd, ("404",)),
                "delete": _op("deleteCrowd", "drop a crowd", [_ID],
                              {"204": {"description": "dropped"}}, ("404",))},
            "/crowds/{id}/step": {"post": _op(
                "stepCrowd", "step a crowd", [_ID], crowd,
                ("400", "404", "409", "413", "422", "503"), _body([], {
                    "steps": {"type": "integer", "minimum": 1, "default": 1},
                    "dt": {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_DT,
                           "default": 0.1}}))},
            "/openapi.json": {"get": _op("openapi", "this schema", [],
                                         {"200": {"description": "OpenAPI 3.1"}}, ())},
            **_playground(),
        },
        "components": {"schemas": {
            "Error": {"type": "object", "required": ["error", "detail"], "properties": {
                "error": {"type": "string"}, "detail": {"type": "string"}}},
            "Worlds": {"type": "object", "properties": {"worlds": {"type": "array", "items": {
                "type": "object", "required": ["name", "kind", "queries", "methods"],
                "properties": {"name": {"type": "string"}, "kind": {
                    "type": "string", "enum": ["grid", "navmesh", "navmesh3d", "voxel"]},
                    "queries": {"type": "array", "items": {"type": "string"}},
                    "methods": {"type": "array", "items": {"type": "string"}}}}}}},
            "PathResult": {"type": "object", "properties": {
                "path": {"type": "array", "items": {"type": "array", "items": _NUMBER}},
                "cost": {"type": ["number", "null"]}, "found": {"type": "boolean"},
                "status": {"type": "string"}, "algorithm": {"type": "string"},
                "stats": {"type": "object"}}},
            "DistanceMap": {"type": "object", "properties": {
                "shape": {"type": "array", "items": {"type": "integer"}},
                "distance": {"type": "array"}}},
            "FlowField": {"type": "object", "properties": {
                "shape": {"type": "array", "items": {"type": "integer"}},
                "directions": {"type": "array", "items": _CELL},
                "goal": {"type": "integer"}, "none": {"type": "integer"},
                "codes": {"type": "array"}, "field": {"type": "array"}}},
            "Crowd": {"type": "object", "properties": {
                "id": {"type": "string"}, "world": {"type": "string"},
                "steps": {"type": "integer"}, "time": _NUMBER,
                "ids": {"type": "array", "items": {"type": "integer"}},
                "position": {"type": "array", "items": _XY},
                "velocity": {"type": "array", "items": _XY},
                "state": {"type": "array", "items": {"type": "string"}}}}}},
    }
