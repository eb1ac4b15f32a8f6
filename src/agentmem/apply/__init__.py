"""Apply: the deterministic edit of files from accepted proposals (SPEC §2 *apply*).

``planner`` is pure: it computes every file's new text and diff and validates each edit before
anything is written. ``writer`` writes only changed files atomically and commits them. This
package never reaches the network.
"""
