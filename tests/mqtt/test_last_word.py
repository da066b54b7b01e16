"""A stopping service's last word: it publishes "offline" itself and waits for the broker's
acknowledgement; when that does not come in time (a loaded host), it disconnects asking the
broker to publish its Last Will (MQTT 5 reason code 4), so the floor still learns it stopped
(controller/mqtt/client.py `disconnect`, controller/room/room_service.py `close`)."""

from __future__ import annotations

from controller.mqtt.client import connect, disconnect, new_client
from controller.mqtt.messages import ServiceStatus, decode
from controller.mqtt.topics import Topics
from tests.venue import Broker, VenueClient, address, login


def test_a_disconnect_with_the_will_has_the_broker_say_offline(broker: Broker) -> None:
    topic = Topics(broker.plan.venue).service("clock", "status")
    watcher = VenueClient(broker, "floor", ("clock/status",))
    client = new_client("clock", login(broker, "clock"), address(broker),
                        will=(topic, ServiceStatus(service="clock", status="offline")))
    try:
        connect(client, address(broker))
        client.publish(topic, b'{"v": 1, "service": "clock", "status": "online"}', qos=1,
                       retain=True)
        assert watcher.wait(lambda ms: any(b'"online"' in m.payload for m in ms))
        disconnect(client, with_will=True)
        assert watcher.wait(lambda ms: any(b'"offline"' in m.payload for m in ms))
        said = [decode(ServiceStatus, m.payload).status for m in watcher.on("status")]
        assert said == ["online", "offline"]
    finally:
        watcher.close()
