"""``python -m engine.pbrain``: the public name of the protocol brain, kept where Gomocup
managers and scripts already call it. The brain itself is ``engine.gomocup.pbrain``; this
package only holds the ``__main__`` that runs it."""
